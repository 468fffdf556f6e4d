/**
 * The pid of the process that started this plugin, read when the SDK is first loaded: the
 * host may be killed while the plugin is still starting (binding, handshake), and a pid read
 * after that would already be the orphan's new parent, which never changes again.
 */
const STARTED_BY = process.ppid;

/**
 * Calls `onGone` once the process that started this plugin is gone.
 *
 * How: the parent pid read at load is compared every `intervalMs`; when the host dies the
 * kernel re-parents the plugin (to init or a subreaper), so `process.ppid` changes. Chosen over
 * watching stdin for end-of-file because a go-plugin host may hand over its own stdin (a
 * terminal, /dev/null or an unrelated pipe), which would make a healthy plugin exit at once or
 * never. The timer is unref'd: it never keeps the process alive by itself.
 */
export function watchHost(onGone: () => void, intervalMs = 500): () => void {
  const timer = setInterval(() => {
    if (process.ppid === STARTED_BY) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
