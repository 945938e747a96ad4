/**
 * `true` when A and B have the same fields, each required on both or on neither, with types that
 * assign both ways. For a response schema and the type the code builds (a read model's view, a stored
 * record): `Assert<SameShape<…>>` fails the build when a field is added, dropped or made optional on
 * one side until the other follows.
 */
export type SameShape<A, B> = [A, B] extends [B, A]
  ? [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never]
    ? true
    : { differ: [A, B] }
  : { differ: [A, B] };

/** Compiles only when T is `true`. */
export type Assert<T extends true> = T;
