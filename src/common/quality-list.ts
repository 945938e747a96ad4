// The comma-separated lists with q-values of Accept and Accept-Encoding (RFC 9110 §12.4.2), parsed
// one way for every negotiation of the service (screenshot format, player HTML, compressed reads).

export interface QualityItem {
  /** The item, trimmed and lowercased, without its parameters (a media range or a coding). */
  value: string;
  /** Its q-value, 0 to 1; 1 when absent or unreadable. */
  q: number;
}

export function qualityList(header: string | string[] | undefined): QualityItem[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const items: QualityItem[] = [];
  for (const part of text.split(',')) {
    const [value, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!value) continue;
    const q = params.map((p) => /^q\s*=\s*([0-9.]+)$/.exec(p)?.[1]).find((v) => v !== undefined);
    items.push({ value, q: q === undefined ? 1 : Math.min(1, Math.max(0, Number(q) || 0)) });
  }
  return items;
}
