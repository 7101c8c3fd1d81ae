// The console's editing: the admin token, the pricing row editor (PUT
// /v1/admin/pricing/:model) and the price sync's proposals (approve or
// reject). Plain browser JavaScript with no build step, inlined after
// shared.client.js. The token stays in this script's memory only.

(() => {
  "use strict";
  const { byId, control, setStatus: status, describeError, messageOf } = consoleKit;
  /** @type {ConsoleData} */
  let data = JSON.parse(byId("console-data").textContent ?? "{}");
  /** @type {string | null} */
  let adminToken = null;
  const dialog = byId("edit-dialog", HTMLDialogElement);
  /** @type {HTMLElement | null} */
  let opener = null;

  /** @param {boolean} on */
  function setEditable(on) {
    for (const button of document.querySelectorAll("button.edit, #add-row, button.pending-action"))
      if (button instanceof HTMLElement) button.hidden = !on;
  }

  /** @param {EventTarget | null} target @param {string} selector */
  const closestButton = (target, selector) => (target instanceof Element ? target.closest(selector) : null);

  byId("admin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const note = byId("admin-status");
    const token = control("admin-token").value.trim();
    adminToken = null;
    setEditable(false);
    if (token === "") return status(note, "Read-only.", "");
    status(note, "Checking the token…", "");
    try {
      const res = await fetch("/v1/admin/pricing", { headers: { authorization: `Bearer ${token}` } });
      if (res.status === 401 || res.status === 403) return status(note, "The admin API refused this token.", "error");
      if (!res.ok) return status(note, `The admin API answered HTTP ${res.status}.`, "error");
      adminToken = token;
      setEditable(true);
      status(note, "Editing enabled. The token stays in this tab's memory only.", "ok");
    } catch (error) {
      status(note, `Could not reach the admin API: ${messageOf(error)}`, "error");
    }
  });

  /** An invalid row is shown as stored, indented when it is at least JSON. @param {string} text */
  function prettyOrRaw(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  /** @param {string | null} model @param {HTMLElement} button */
  function openEditor(model, button) {
    opener = button;
    const known = model !== null && Object.prototype.hasOwnProperty.call(data.rows, model);
    const row = known
      ? data.rows[model]
      : { input: 0, output: 0, provider: "", verified_at: new Date().toISOString().slice(0, 10) };
    const modelInput = byId("edit-model", HTMLInputElement);
    modelInput.value = model || "";
    modelInput.readOnly = model !== null;
    control("edit-json").value = typeof row === "string" ? prettyOrRaw(row) : JSON.stringify(row, null, 2);
    byId("edit-h").textContent = model === null ? "Add a pricing row" : `Edit ${model}`;
    status(byId("edit-status"), "", "");
    dialog.showModal();
    (model === null ? modelInput : control("edit-json")).focus();
  }

  byId("pricing").addEventListener("click", (event) => {
    const button = closestButton(event.target, "button.edit, #add-row");
    if (!(button instanceof HTMLElement) || !adminToken) return;
    openEditor(button.id === "add-row" ? null : (button.dataset.edit ?? ""), button);
  });
  byId("edit-cancel").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => opener && opener.isConnected && opener.focus());

  async function refreshTable() {
    const res = await fetch("/", { cache: "no-store" });
    // The fresh page's <style> carries another request's nonce: leave it out
    // rather than have CSP report it while parsing.
    const html = (await res.text()).replace(/<style[^>]*>[\s\S]*?<\/style>/, "");
    const doc = new DOMParser().parseFromString(html, "text/html");
    for (const selector of ["#pricing .table-scroll", "#pricing .summary", "#model-list", "#pending"]) {
      const fresh = doc.querySelector(selector);
      const old = document.querySelector(selector);
      if (fresh && old) old.replaceWith(document.importNode(fresh, true));
    }
    data = JSON.parse(doc.getElementById("console-data")?.textContent ?? "{}");
    setEditable(adminToken !== null);
  }

  // Approve or reject one of the price sync's proposals; the section is
  // replaced on refresh, so the listener sits on the document.
  document.addEventListener("click", async (event) => {
    const button = closestButton(event.target, "button.pending-action");
    if (!(button instanceof HTMLElement) || !adminToken) return;
    // The digest of the change this page shows: the API refuses (409) if the sync has replaced it since.
    const { decide, model = "", digest } = button.dataset;
    const note = () => byId("pending-status");
    status(note(), `${decide === "approve" ? "Approving" : "Rejecting"} ${model}…`, "");
    try {
      const res = await fetch(`/v1/admin/pending/${encodeURIComponent(model)}/${decide}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ digest }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok)
        return status(
          note(),
          `Not ${decide === "approve" ? "approved" : "rejected"}: ${describeError(body, res)}`,
          "error",
        );
      await refreshTable();
      status(note(), `${decide === "approve" ? "Approved" : "Rejected"} ${model}.`, "ok");
    } catch (error) {
      status(note(), `Could not reach the admin API: ${messageOf(error)}`, "error");
    }
  });

  /** The admin PUT answer's warnings, each as text. @param {unknown} body */
  function warningsOf(body) {
    const warnings =
      body !== null && typeof body === "object" ? /** @type {{ warnings?: unknown }} */ (body).warnings : undefined;
    if (!Array.isArray(warnings) || warnings.length === 0) return "";
    return ` Warnings: ${warnings.map((w) => (typeof w === "string" ? w : w.message || JSON.stringify(w))).join("; ")}`;
  }

  byId("edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const note = byId("edit-status");
    const model = control("edit-model").value.trim();
    let row;
    try {
      row = JSON.parse(control("edit-json").value);
    } catch (error) {
      return status(note, `The row is not valid JSON: ${messageOf(error)}`, "error");
    }
    if (model === "") return status(note, "Name the model.", "error");
    status(note, "Saving…", "");
    try {
      const res = await fetch(`/v1/admin/pricing/${encodeURIComponent(model)}`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify(row),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) return status(note, `Not saved — ${describeError(body, res)}`, "error");
      const warnings = warningsOf(body);
      dialog.close();
      await refreshTable();
      status(byId("admin-status"), `Saved ${model}.${warnings}`, warnings ? "warn" : "ok");
    } catch (error) {
      status(note, `Could not save: ${messageOf(error)}`, "error");
    }
  });
})();
