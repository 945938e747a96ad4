-- Server-made keyframes (docs/keyframes.md) in the keyframe index: 'server', a keyframe the service
-- made and stored as its own message (subject td.rec.<t>.<r>.kf, ts its moment, seq that message's),
-- and 'failed', a moment at which making one failed (remembered so the maker does not try again at
-- once). Adding enum values changes no stored data, so this is allowed on a key column.
ALTER TABLE recording_keyframes MODIFY COLUMN kind Enum8('kf' = 1, 'meta' = 2, 'open' = 3, 'server' = 4, 'failed' = 5);
