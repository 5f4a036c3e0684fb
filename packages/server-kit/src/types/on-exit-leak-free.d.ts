/** on-exit-leak-free 2 (pino's own exit hook): calls `fn` on exit while `object` is alive, holding it weakly. */
declare module 'on-exit-leak-free' {
  export function register<T extends object>(object: T, fn: (object: T, event: 'exit') => void): void;
  export function registerBeforeExit<T extends object>(object: T, fn: (object: T, event: 'beforeExit') => void): void;
  export function unregister(object: object): void;
  const onExit: { register: typeof register; registerBeforeExit: typeof registerBeforeExit; unregister: typeof unregister };
  export default onExit;
}
