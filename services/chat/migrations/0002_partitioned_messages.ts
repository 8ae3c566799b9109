import { Effect } from "effect"
import { partitionInPlace } from "../../../runtime/run/PartitionInPlace.js"

/**
 * Chat turns grow with every run: chat_messages is partitioned by day on its session's id (a
 * version-7 id), so a session's messages stay together (issue 38). Keys hold the partition key:
 * the primary key is (session_id, id), a run's question is unique per session, and lookups by a
 * message's id use a plain index on every partition.
 */
export default partitionInPlace({
  name: "chat_messages",
  key: "session_id",
  constraints: [
    "chat_messages_pkey PRIMARY KEY (session_id, id)",
    "chat_messages_session_id_fkey FOREIGN KEY (session_id) REFERENCES chat_sessions(id) ON DELETE CASCADE"
  ],
  indexes: [
    "INDEX chat_messages_id ON chat_messages (id)",
    "INDEX chat_messages_session ON chat_messages (session_id, turn_seq, seq)",
    "UNIQUE INDEX chat_messages_run ON chat_messages (session_id, run_id) WHERE role = 'user'",
    "INDEX chat_messages_open ON chat_messages (status) WHERE role = 'user' AND status IN ('queued', 'running')"
  ],
  sequences: [{ sequence: "chat_messages_seq_seq", column: "seq" }]
}).pipe(Effect.asVoid)
