/**
 * Asynchronous video tasks, as OpenAI's Videos API and the relays that copy it serve them: a
 * creation answers at once with a task id and `queued`, and the client polls the task until it is
 * `completed` or `failed`. Shapes: https://platform.openai.com/docs/api-reference/videos (POST
 * /videos, GET /videos/{id}; statuses queued, in_progress, completed, failed) and New API's copy,
 * https://docs.newapi.pro/en/docs/api/ai-model/videos/sora/get-video. Every creation makes (and
 * bills) a task of its own, even one whose answer never reached the client: asynchronous creation
 * may succeed when the client saw a failure (docs/gateway-spec.md §3).
 */

export type TaskStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface SimulatedTask {
  id: string;
  model: string;
  prompt: string;
  /** The length asked for, as OpenAI states it: a string of whole seconds. */
  seconds: string;
  status: TaskStatus;
  progress: number;
  createdAtS: number;
  /** Why the task fails when polled to its end, or null for a task that completes. */
  failure: string | null;
}

const HALF_DONE_PERCENT = 50;

export class TaskStore {
  readonly #tasks = new Map<string, SimulatedTask>();

  create(input: { id: string; model: string; prompt: string; seconds: string; failure: string | null }): SimulatedTask {
    const task: SimulatedTask = { ...input, status: 'queued', progress: 0, createdAtS: Math.floor(Date.now() / 1000) };
    this.#tasks.set(task.id, task);
    return task;
  }

  /** Each poll moves a task one step: queued, in progress, then completed or failed. */
  poll(id: string): SimulatedTask | undefined {
    const task = this.#tasks.get(id);
    if (task === undefined) return undefined;
    if (task.status === 'queued') Object.assign(task, { status: 'in_progress', progress: HALF_DONE_PERCENT });
    else if (task.status === 'in_progress')
      Object.assign(task, task.failure === null ? { status: 'completed', progress: 100 } : { status: 'failed' });
    return task;
  }

  list(): readonly SimulatedTask[] {
    return [...this.#tasks.values()];
  }

  clear(): void {
    this.#tasks.clear();
  }
}

/**
 * The lengths OpenAI's POST /videos takes (`seconds`: "4", "8" or "12", 4 when absent; its API
 * reference, videos/create); any other is refused with a 400 naming the parameter, nothing made.
 */
export const VIDEO_SECONDS: ReadonlySet<string> = new Set(['4', '8', '12']);
export const DEFAULT_VIDEO_SECONDS = '4';

export function videoBody(task: SimulatedTask): object {
  return {
    id: task.id,
    object: 'video',
    model: task.model,
    status: task.status,
    progress: task.progress,
    created_at: task.createdAtS,
    completed_at: task.status === 'completed' || task.status === 'failed' ? Math.floor(Date.now() / 1000) : null,
    seconds: task.seconds,
    size: '720x1280',
    error: task.status === 'failed' ? { code: 'video_generation_failed', message: task.failure } : null,
  };
}
