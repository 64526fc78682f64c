/**
 * An adapter's framework is an optional peer dependency: installing
 * vigil-agents never pulls it in, so it may simply not be there. Imported
 * through here, a missing one is a clear VigilError naming the package to
 * install, not Node's ERR_MODULE_NOT_FOUND from deep inside the adapter.
 */
import { VigilError } from '../errors.js';

export async function loadPeer<T>(name: string, adapter: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new VigilError('invalid_options', `vigil-agents/${adapter} needs the ${name} package, which is not installed: npm install ${name}`, { cause: error });
    }
    throw error;
  }
}
