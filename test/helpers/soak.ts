/** The scale a reliability test runs at: bounded in `npm test`, the full figures under `npm run soak` (SOAK=1). */
export const SOAK = process.env['SOAK'] === '1';
export function soak<T>(bounded: T, full: T): T {
  return SOAK ? full : bounded;
}
