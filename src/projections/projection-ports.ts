// Ports of the projector runner, so its fetch/write/ack decisions are tested with fakes.
import type { ProjectionMessage, Row } from './projection';

export type DeletedRecording = { tenantId: string; recordingId: string; beforeSeq: number };

/** One fetched message and the ways to settle it. */
export interface Delivery {
  message: ProjectionMessage;
  /** 1 on first delivery. */
  deliveryCount: number;
  ack(): void;
  /** Redeliver after `delayMs` (a transient failure; never term()). */
  nak(delayMs: number): void;
  /** Resets the server's ack_wait timer while a slow write is in progress. */
  working(): void;
}

export interface ProjectionLag {
  /** Messages not yet delivered to any worker. */
  pending: number;
  /** Delivered, not yet acknowledged. */
  ackPending: number;
  /** Every message up to this stream sequence is projected. */
  ackFloorSeq: number;
  streamLastSeq: number;
  /** Age of the oldest unprojected message, seconds (0 when caught up). */
  oldestUnprojectedAgeSeconds: number;
}

export interface FetchWait {
  /** Long-poll for the first message (the idle wait). */
  expiresMs: number;
  /** After the first message, how long to let a partial batch fill (0: take only what is there). */
  lingerMs: number;
  /**
   * Epoch ms before which a partial batch is not returned (the linger is extended to it): spaces a
   * projection's writes at a steady low rate. A full batch pending is returned at once whatever this says.
   */
  notBefore?: number;
}

/** The durable consumer of one projection (JetStream in production). */
export interface ProjectionSource {
  /** Creates the consumer if missing, updates mutable limits, refuses drift of its shape. */
  ensure(): Promise<void>;
  /**
   * Up to `max` messages: waits up to `wait.expiresMs` for the first one, then, unless a full batch
   * is already pending, `wait.lingerMs` more (or until `wait.notBefore`, if later) for others to
   * arrive, and returns what it has.
   * An empty array means nothing arrived within `expiresMs`.
   */
  fetch(max: number, wait: FetchWait): Promise<Delivery[]>;
  /** Fills `data` of messages whose kind needs a payload (they arrive headers-only). */
  loadBodies(messages: ProjectionMessage[]): Promise<void>;
  lag(): Promise<ProjectionLag>;
}

/** Where rows go (ClickHouse in production). */
export interface ProjectionSink {
  ready(): Promise<boolean>;
  insert(table: string, rows: Row[]): Promise<void>;
  /** One statement removing, for each recording given, its rows with seq below `beforeSeq`. */
  deleteRecordings(table: string, recordings: DeletedRecording[]): Promise<void>;
}
