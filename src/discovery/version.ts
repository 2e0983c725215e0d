/**
 * `/version`: the Kubernetes release this server answers as, in kube's version.Info shape. The
 * values are those of the official kube-apiserver v1.32.4 build (its git commit and build date;
 * the Go release it was built with), so clients that gate features on the server version, or
 * print it, see the release whose behaviour this server reproduces.
 */
export function kubeVersionInfo(): Record<string, string> {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch === 'ia32' ? '386' : process.arch;
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.4',
    gitCommit: '59526cd4867447956156ae3a602fcbac10a2c335',
    gitTreeState: 'clean',
    buildDate: '2025-04-22T15:56:13Z',
    goVersion: 'go1.23.8',
    compiler: 'gc',
    platform: `${process.platform}/${arch}`,
  };
}
