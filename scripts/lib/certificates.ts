// What branded domains' production certificates need in a project that `firebase deploy` does not make
// (docs/deploy.md, "Certificates for branded domains"): the Certificate Manager API, the one certificate
// map every host's entry goes on, and the functions' right to make certificates and entries. Attaching the
// map to the load balancer's HTTPS proxy is included when that proxy is named; the load balancer itself
// (its address, serverless network endpoint groups for the functions, URL map) is made once by hand.
import { CERT_LABELS, CERT_LOCATION, CERT_MAP } from "../../functions/src/domains/issuerGoogle";

export interface CertificateTarget {
  project: string;
  /** The service account the functions run as (the domain checks ask for certificates with it). */
  runtimeAccount: string;
  /** The global external Application Load Balancer's target HTTPS proxy, if it exists already. */
  httpsProxy?: string;
}

/** Certificate Manager's role that can create, read and delete certificates and map entries (not the map's IAM). */
export const ISSUER_ROLE = "roles/certificatemanager.editor";

export function certificateCommands(target: CertificateTarget): string[][] {
  const { project } = target;
  const labels = Object.entries(CERT_LABELS).map(([k, v]) => `${k}=${v}`).join(",");
  const commands = [
    ["gcloud", "services", "enable", "certificatemanager.googleapis.com", `--project=${project}`],
    ["gcloud", "certificate-manager", "maps", "create", CERT_MAP, `--location=${CERT_LOCATION}`, `--labels=${labels}`, `--description=Branded domains: one entry per active host`, `--project=${project}`],
    ["gcloud", "projects", "add-iam-policy-binding", project, `--member=serviceAccount:${target.runtimeAccount}`, `--role=${ISSUER_ROLE}`, "--condition=None"],
  ];
  if (target.httpsProxy) commands.push(["gcloud", "compute", "target-https-proxies", "update", target.httpsProxy, `--certificate-map=${CERT_MAP}`, "--global", `--project=${project}`]);
  return commands;
}
