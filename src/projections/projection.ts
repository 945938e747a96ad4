// The contract of a projection: a pure function from stream messages to rows per ClickHouse table.
// The runner owns fetching, writing and acknowledging; a projection never does I/O.
import type { SubjectKind } from '../infrastructure/nats/subjects';

/** One stream message as projections see it (headers only, unless its kind is in `bodyKinds`). */
export interface ProjectionMessage {
  /** Stream sequence (of a sealed batch record: the message it replaced; see js-message.ts). */
  seq: number;
  /** Where a sealed batch record itself is in the stream (absent: at `seq`). */
  streamSeq?: number;
  subject: string;
  /** Stream time of the message, epoch ms. */
  timeMs: number;
  /** The Td-* headers that were present. */
  headers: Readonly<Record<string, string | undefined>>;
  /** Payload; set only for kinds listed in the projection's `bodyKinds` (undefined if it vanished). */
  data?: Uint8Array;
}

export type Row = Record<string, string | number | number[]>;

/** Remove a recording's rows older than a deletion marker: ALTER TABLE … DELETE WHERE … AND seq < beforeSeq. */
export interface RecordingDeletion {
  tables: readonly string[];
  tenantId: string;
  recordingId: string;
  beforeSeq: number;
}

export interface ProjectionOutput {
  /** Rows by table: the runner inserts each table's rows in one statement, before deletions. */
  rows: Record<string, Row[]>;
  deletions: RecordingDeletion[];
  /** Messages that can never produce rows (malformed); acknowledged and logged, not retried. */
  skipped: { seq: number; reason: string }[];
}

export interface Projection {
  /** Short name: CLI argument and part of the durable consumer name. */
  name: string;
  /** One subject filter (nats-server 2.9 accepts only one per consumer). */
  filterSubject: string;
  /** Tables this projection writes; a rebuild recreates and swaps exactly these. */
  tables: readonly string[];
  /** Kinds whose payload `apply` needs; other messages arrive headers-only. */
  bodyKinds: readonly SubjectKind[];
  /** Of a message of those kinds, whether `apply` needs its payload after all (absent: always). */
  needsBody?: (m: ProjectionMessage) => boolean;
  apply(messages: readonly ProjectionMessage[]): ProjectionOutput;
}
