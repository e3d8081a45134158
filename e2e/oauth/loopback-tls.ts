import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * A self-signed certificate for https://127.0.0.1, so the CIMD test can serve its client metadata
 * document over https: the SDK v1 client refuses a `clientMetadataUrl` that is not https, and the
 * stack's server trusts this certificate through NODE_EXTRA_CA_CERTS (set by e2e/global-setup.ts,
 * read once when the web process starts). Generated with the openssl CLI because Node cannot mint
 * X.509 certificates itself.
 */
export type LoopbackTls = { keyFile: string; certFile: string };

/** A fresh key and certificate for this run (its own directory, so two runs never share one). */
export function createLoopbackTls(projectRoot: string): LoopbackTls {
  const dir = path.join(projectRoot, "test-results", `loopback-tls-${process.pid}`);
  const tls = { keyFile: path.join(dir, "key.pem"), certFile: path.join(dir, "cert.pem") };
  mkdirSync(dir, { recursive: true });
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      tls.keyFile,
      "-out",
      tls.certFile,
    ],
    { stdio: "ignore" },
  );
  return tls;
}

/** The certificate the stack was started to trust (undefined when the tests run against a stack started elsewhere). */
export function loopbackTlsFromEnv(): { key: Buffer; cert: Buffer } | undefined {
  const certFile = process.env.E2E_LOOPBACK_TLS_CERT;
  const keyFile = process.env.E2E_LOOPBACK_TLS_KEY;
  if (!certFile || !keyFile) return undefined;
  return { key: readFileSync(keyFile), cert: readFileSync(certFile) };
}
