/**
 * A pass-through HTTPS proxy in front of kube-gateway for Kubernetes' e2e suite, answering the one
 * request the suite's setup makes that kube-gateway cannot serve yet:
 * GET /api/v1/namespaces/default/services/kubernetes (the suite reads the cluster's IP family from
 * it, unconditionally, before any spec). Everything else is forwarded unchanged, streaming, with the
 * admin client certificate. Used by parity/run-e2e.sh unless --no-shim; remove once Services are served.
 *
 *   tsx parity/e2e-shim.ts --data-dir DIR --upstream https://127.0.0.1:PORT --port N
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, upstream: { type: 'string' }, port: { type: 'string' } } });
const dataDir = values['data-dir']!;
const upstream = new URL(values.upstream!);
const ca = readFileSync(join(dataDir, 'ca.crt'));
const agent = new https.Agent({ ca, cert: readFileSync(join(dataDir, 'admin.crt')), key: readFileSync(join(dataDir, 'admin.key')), keepAlive: true });

const KUBERNETES_SERVICE = {
  kind: 'Service',
  apiVersion: 'v1',
  metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
  spec: { ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: Number(upstream.port) }], clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], type: 'ClusterIP', ipFamilies: ['IPv4'] },
  status: { loadBalancer: {} },
};

const server = https.createServer(
  // The client certificate is requested (the e2e client sends the admin one) but not checked here:
  // this proxy listens on loopback for one test run and authenticates upstream as admin itself.
  { cert: readFileSync(join(dataDir, 'apiserver.crt')), key: readFileSync(join(dataDir, 'apiserver.key')), requestCert: true, rejectUnauthorized: false },
  (req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/api/v1/namespaces/default/services/kubernetes') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(KUBERNETES_SERVICE));
      return;
    }
    const headers = { ...req.headers, host: upstream.host };
    const out = https.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.rawHeaders);
      // Send the headers now: a watch may have no event for minutes, and client-go waits for them.
      res.flushHeaders();
      up.pipe(res);
    });
    out.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`shim: ${err.message}`);
    });
    res.on('close', () => out.destroy());
    req.pipe(out);
  },
);
server.listen(Number(values.port), '127.0.0.1', () => process.stdout.write(`shim listening on ${values.port}\n`));
