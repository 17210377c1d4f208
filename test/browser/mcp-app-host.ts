// A minimal MCP Apps host for the browser test, built on the ext-apps host bridge (AppBridge): it puts a
// ui:// page in a sandboxed iframe, answers its handshake, hands it a tool result, and records what the
// app asks of the host (links to open, tools to call).
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

interface HostLog {
  links: string[];
  toolCalls: string[];
}

declare global {
  interface Window {
    hostLog: HostLog;
    renderApp(html: string, result: unknown): Promise<void>;
  }
}

window.hostLog = { links: [], toolCalls: [] };

window.renderApp = async (html, result) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "svc app";
  document.getElementById("host")!.replaceChildren(iframe);
  const bridge = new AppBridge(null, { name: "svc-test-host", version: "1.0.0" }, { openLinks: {} });
  bridge.onopenlink = async ({ url }) => {
    window.hostLog.links.push(url);
    return {};
  };
  bridge.oncalltool = async ({ name }) => {
    window.hostLog.toolCalls.push(name);
    throw new Error("this host lets the app call no tool");
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.ceil(height)}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  // The bridge listens before the page loads: the app says hello as soon as its script runs.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolResult(result as never);
};
