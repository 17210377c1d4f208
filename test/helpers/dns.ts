// A DNS server on loopback (dns2's UDP server on 127.0.0.1, a port the system picks) serving test zones:
// the only DNS server a test may ask. Names not in the zone answer NXDOMAIN; a name marked `fail`
// answers SERVFAIL, as a broken authoritative server would.
import type { AddressInfo } from "node:net";
import dns2 from "dns2";

const { Packet } = dns2;

export interface TestRecords {
  TXT?: string[];
  CNAME?: string;
  A?: string[];
  AAAA?: string[];
  CAA?: Array<{ tag: "issue" | "issuewild" | "iodef"; value: string }>;
  fail?: boolean;
}

const NXDOMAIN = 3;
const SERVFAIL = 2;

export class TestDns {
  private readonly zone = new Map<string, TestRecords>();
  /** Every question asked, as "TYPE name". */
  readonly questions: string[] = [];
  private readonly server = new dns2.UDPServer((request: any, send: (response: any) => void) => {
    // dns2's declared Resource type wants encoders on each answer; the packet encodes plain records itself.
    const response: { header: { rcode: number }; answers: object[] } = Packet.createResponseFromRequest(request) as any;
    const [question] = request.questions;
    const name = String(question.name).toLowerCase().replace(/\.$/, "");
    const type = Object.entries(Packet.TYPE as Record<string, number>).find(([, v]) => v === question.type)?.[0] ?? String(question.type);
    this.questions.push(`${type} ${name}`);
    const records = this.zone.get(name);
    if (!records) response.header.rcode = NXDOMAIN;
    else if (records.fail) response.header.rcode = SERVFAIL;
    else {
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      if (type === "TXT") for (const data of records.TXT ?? []) response.answers.push({ ...base, type: Packet.TYPE.TXT, data });
      if (type === "CNAME" && records.CNAME) response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain: records.CNAME });
      if (type === "A") for (const address of records.A ?? []) response.answers.push({ ...base, type: Packet.TYPE.A, address });
      if (type === "AAAA") for (const address of records.AAAA ?? []) response.answers.push({ ...base, type: Packet.TYPE.AAAA, address });
      if (type === "CAA") for (const r of records.CAA ?? []) response.answers.push({ ...base, type: Packet.TYPE.CAA, flags: 0, tag: r.tag, value: r.value });
    }
    send(response);
  });

  /** Starts the server; answers the `address:port` to give a resolver. */
  async start(): Promise<string> {
    await this.server.listen(0, "127.0.0.1");
    return this.address;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Replaces a name's records (an empty object: the name exists with no records). */
  set(name: string, records: TestRecords): void {
    this.zone.set(name.toLowerCase(), records);
  }

  remove(name: string): void {
    this.zone.delete(name.toLowerCase());
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
