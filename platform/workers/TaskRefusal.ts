/**
 * Thrown by a task on the worker side when the input is refused (over a cap, malformed): it
 * reaches the caller as `WorkerTaskRefused` with this code and message, never as a crash.
 */
export class TaskRefusal extends Error {
  override readonly name = "TaskRefusal"
  constructor(readonly code: string, message: string) {
    super(message)
  }
}

export const refuse = (code: string, message: string): never => {
  throw new TaskRefusal(code, message)
}
