import { defineJob } from 'dueq';

/** The benchmark's no-op job, for `dueq start` (scale rows). */
export default defineJob({ type: 'bench', handle: async () => {} });
