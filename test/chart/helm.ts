/**
 * The real Helm (v3.16.4) for the chart tests: ~/.cache/kube-gateway/bin/helm, built from the Go
 * module proxy when missing (or copied from a warmed Go build at /tmp/gowarm/bin/helm), as
 * .ci/run does. Also renders the chart into objects.
 */
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const HELM_VERSION = 'v3.16.4';
export const chartDir = fileURLToPath(new URL('../../charts/kube-gateway', import.meta.url));
const cacheBin = join(homedir(), '.cache', 'kube-gateway', 'bin');

/** The helm binary's path, building it first when it is not cached (minutes, once). */
export function ensureHelm(): string {
  const helm = join(cacheBin, 'helm');
  if (existsSync(helm)) return helm;
  mkdirSync(cacheBin, { recursive: true });
  const warmed = '/tmp/gowarm/bin/helm';
  if (existsSync(warmed)) {
    copyFileSync(warmed, helm);
    return helm;
  }
  execFileSync('nice', ['go', 'install', `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
    env: { ...process.env, GOBIN: cacheBin, GOSUMDB: 'off', GOFLAGS: '-mod=mod' },
    stdio: 'inherit',
    timeout: 20 * 60_000,
  });
  return helm;
}

export function runHelm(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(ensureHelm(), [...args], { maxBuffer: 32 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; [k: string]: unknown }; [k: string]: any };

/** `helm template` with a values file's content (JSON is YAML); the objects it renders. */
export async function renderChart(valuesFile: string | undefined, release = 'gw', namespace = 'gateway'): Promise<K8sObject[]> {
  const r = await runHelm(['template', release, chartDir, '--namespace', namespace, ...(valuesFile ? ['-f', valuesFile] : [])]);
  if (r.code !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}
