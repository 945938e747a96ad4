// Where ingestion finds the recording id: in the path (/recordings/{recordingId}/…), or, on the
// collection paths, in `?recordingId=` as rrweb's browser clients send it when their serverUrl has
// no `{recordingId}` placeholder (they append the query parameter instead). Either way a bad or
// missing id is the same JSON 400 as any request-schema failure, and so is a repeated
// `?recordingId=` (which one would the batch go to?).
import { parseWith, uuidParam, ValidationError } from '../common/validation';
import { IngestionQuerySchema } from './ingestion.dto';

export function recordingIdFrom(value: unknown): string {
  if (value === undefined || value === '') {
    throw new ValidationError('Invalid recordingId: required, in the path (/recordings/{recordingId}/events) or as ?recordingId=<uuid>', [
      { path: 'recordingId', message: 'required' },
    ]);
  }
  if (Array.isArray(value)) return parseWith(IngestionQuerySchema, { recordingId: value }, 'query').recordingId; // "must be given once"
  return parseWith(uuidParam, value, 'recordingId');
}
