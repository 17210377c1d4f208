// The report form: sends POST /api/reports and says what happened in words, never a raw error.
const form = document.getElementById("report-form");
const status = document.getElementById("report-status");
const send = document.getElementById("report-send");

function say(text, kind) {
  status.textContent = text;
  status.className = kind;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const body = { code: String(data.get("code") || "").trim(), reason: data.get("reason") };
  const details = String(data.get("details") || "").trim();
  const contact = String(data.get("contact") || "").trim();
  if (details) body.details = details;
  if (contact) body.contact = contact;
  if (!body.code) return say("Paste the address the code opened first.", "error");
  send.disabled = true;
  say("Sending…", "");
  try {
    const res = await fetch("/api/reports", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const answer = await res.json().catch(() => ({}));
    if (res.status === 202) {
      form.reset();
      say(`Thank you. Your report (${answer.reportId}) is with our operators.`, "ok");
    } else if (res.status === 429) {
      say("You have sent several reports in a short time. Please try again in an hour.", "error");
    } else if (res.status === 404) {
      say("No QR code made here has this address. Check it: it ends in /qr/ and 12 letters and digits.", "error");
    } else if (res.status === 400) {
      const field = JSON.stringify(answer).includes("contact") ? "The email address does not look right." : answer.message || "Check the address and try again.";
      say(field, "error");
    } else {
      say("The report could not be sent just now. Please try again in a few minutes.", "error");
    }
  } catch {
    say("The report could not be sent: check your connection and try again.", "error");
  } finally {
    send.disabled = false;
  }
});

// The button starts disabled: a form sent before this script ran would go nowhere (a plain GET of this page).
send.disabled = false;
