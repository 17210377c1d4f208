// The local certificate authority: `npm start` (and every test stack) makes one if none exists, and the
// local front (scripts/lib/front.ts) signs a certificate with it for each merchant's host the local
// issuer has issued for (functions/src/domains/issuer.ts plays Google's managed certificates; this
// makes the bytes). Made with the openssl command line through child_process: no X.509 library
// (node-forge, selfsigned, @peculiar/x509) is in node_modules, Node's crypto parses certificates but
// cannot make them, and openssl is on every machine this project runs on. Trust ca.crt in a browser (or
// pass it as `ca` to Node's https client) to reach a merchant's host on the front without a warning.
import { execFileSync } from "node:child_process";
import { randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface LocalCa {
  /** The CA certificate's file: what a client trusts. */
  certFile: string;
  certPem: string;
  keyPem: string;
}

export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

const CA_NAME = "svc local CA (development only)";
/** Days the CA is valid; it is made again when less than LEFT_DAYS remain. */
const CA_DAYS = 3650;
const LEFT_DAYS = 30;
/** Days a host's certificate is valid: as long as a managed certificate (90). */
const LEAF_DAYS = 90;

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

/** Whether a certificate in PEM is still valid `days` from now. */
function validFor(certPem: string, days: number): boolean {
  try {
    return new Date(new X509Certificate(certPem).validTo).getTime() > Date.now() + days * 86_400_000;
  } catch {
    return false;
  }
}

/** The CA in `dir`, made (an EC P-256 key and a self-signed certificate) when absent or near its end. */
export function ensureLocalCa(dir: string): LocalCa {
  const certFile = path.join(dir, "ca.crt");
  const keyFile = path.join(dir, "ca.key");
  if (!existsSync(certFile) || !existsSync(keyFile) || !validFor(readFileSync(certFile, "utf8"), LEFT_DAYS)) {
    mkdirSync(dir, { recursive: true });
    const work = mkdtempSync(path.join(tmpdir(), "svc-ca-"));
    try {
      openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", String(CA_DAYS), "-subj", `/CN=${CA_NAME}`,
        "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0", "-addext", "keyUsage=critical,keyCertSign,cRLSign"], work);
      // The key first, then the certificate: a reader that finds the certificate finds its key.
      writeFileSync(keyFile, readFileSync(path.join(work, "ca.key")), { mode: 0o600 });
      writeFileSync(certFile, readFileSync(path.join(work, "ca.crt")));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return { certFile, certPem: readFileSync(certFile, "utf8"), keyPem: readFileSync(keyFile, "utf8") };
}

/** A server certificate for `hostname` (ASCII, as domains are stored), signed by the CA. */
export function issueCertificate(ca: LocalCa, hostname: string): IssuedCertificate {
  if (!/^[a-z0-9.-]{1,253}$/.test(hostname)) throw new Error(`not a host name: ${hostname}`);
  const work = mkdtempSync(path.join(tmpdir(), "svc-leaf-"));
  try {
    writeFileSync(path.join(work, "ca.crt"), ca.certPem);
    writeFileSync(path.join(work, "ca.key"), ca.keyPem, { mode: 0o600 });
    writeFileSync(path.join(work, "ext.cnf"), `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${hostname}\n`);
    openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", `/CN=${hostname}`], work);
    openssl(["x509", "-req", "-in", "leaf.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-set_serial", `0x${randomBytes(16).toString("hex")}`, "-days", String(LEAF_DAYS), "-extfile", "ext.cnf", "-out", "leaf.crt"], work);
    return { certPem: readFileSync(path.join(work, "leaf.crt"), "utf8"), keyPem: readFileSync(path.join(work, "leaf.key"), "utf8") };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
