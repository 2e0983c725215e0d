/**
 * --admission-control-config-file: an AdmissionConfiguration (apiserver.config.k8s.io/v1, or the
 * older v1alpha1 and apiserver.k8s.io/v1alpha1) naming each plugin's configuration, embedded
 * (`configuration`) or in a file (`path`, relative to the AdmissionConfiguration's directory).
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface PluginConfig {
  readonly config: unknown;
  /** Where relative paths inside this plugin's configuration are resolved from. */
  readonly configDir: string;
}

const acceptedVersions = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];

/** A configuration file that cannot be used; the message names the file and the problem. */
export class AdmissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigError';
  }
}

async function readYaml(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`unable to read ${what} from ${JSON.stringify(path)} [${(err as Error).message}]`);
  }
  try {
    return parseYaml(text);
  } catch (err) {
    throw new AdmissionConfigError(`unable to decode ${what} ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}

/** Reads the AdmissionConfiguration and every plugin configuration it names: plugin name -> configuration. */
export async function loadAdmissionConfiguration(path: string | undefined): Promise<Map<string, PluginConfig>> {
  const out = new Map<string, PluginConfig>();
  if (!path) return out;
  const dir = dirname(resolve(path));
  const doc = await readYaml(path, 'admission control configuration');
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new AdmissionConfigError(`admission control configuration ${JSON.stringify(path)} is not an object`);
  const { apiVersion, kind, plugins } = doc as { apiVersion?: unknown; kind?: unknown; plugins?: unknown };
  if (kind !== 'AdmissionConfiguration' || !acceptedVersions.includes(String(apiVersion))) {
    throw new AdmissionConfigError(
      `admission control configuration ${JSON.stringify(path)}: expected kind AdmissionConfiguration in ${acceptedVersions.join(', ')}, got ${String(apiVersion ?? '')}, Kind=${String(kind ?? '')}`,
    );
  }
  if (plugins !== undefined && plugins !== null && !Array.isArray(plugins)) throw new AdmissionConfigError(`admission control configuration ${JSON.stringify(path)}: plugins must be a list`);
  for (const p of (plugins ?? []) as unknown[]) {
    const { name, path: pluginPath, configuration } = (p ?? {}) as { name?: unknown; path?: unknown; configuration?: unknown };
    if (typeof name !== 'string' || name === '') throw new AdmissionConfigError(`admission control configuration ${JSON.stringify(path)}: every plugin needs a name`);
    if (configuration !== undefined && configuration !== null) {
      out.set(name, { config: configuration, configDir: dir });
    } else if (typeof pluginPath === 'string' && pluginPath !== '') {
      const file = isAbsolute(pluginPath) ? pluginPath : resolve(dir, pluginPath);
      out.set(name, { config: await readYaml(file, `admission plugin ${JSON.stringify(name)} configuration`), configDir: dirname(file) });
    }
  }
  return out;
}
