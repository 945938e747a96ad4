/** The `# TYPE` of every metric family in a Prometheus text exposition, by family name. */
export const typesOf = (text: string): Record<string, string> => Object.fromEntries([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
