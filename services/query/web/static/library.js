// The 收藏 / 不相关 / 已读 buttons without a page reload: the same form posted in the background, asking for JSON;
// the buttons then show the reader's marks. Without JavaScript the form posts and the page comes back.
"use strict";
document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-marks")) return;
  event.preventDefault();
  const body = new URLSearchParams(new FormData(form, event.submitter));
  const response = await fetch(form.action, {
    method: "POST",
    body,
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  if (!response.ok) {
    // post it as a page, so the page says what is wrong (or asks to sign in)
    const choice = Object.assign(document.createElement("input"), { type: "hidden", name: "mark" });
    choice.value = event.submitter ? event.submitter.value : "";
    form.append(choice);
    form.removeAttribute("data-marks");
    form.submit();
    return;
  }
  const marks = await response.json();
  const on = { "mark-save": marks.saved, "mark-dismiss": marks.label === "negative", "mark-read": marks.read };
  for (const button of form.querySelectorAll("button.mark")) {
    const pressed = Object.entries(on).some(([name, value]) => button.classList.contains(name) && value);
    button.value = pressed ? button.dataset.on : button.dataset.off;
    button.textContent = pressed ? button.dataset.labelOn : button.dataset.labelOff;
    button.setAttribute("aria-pressed", String(pressed));
  }
  form.dispatchEvent(new CustomEvent("marks-changed", { bubbles: true, detail: marks }));
  leaveLibrary(form, marks);
});

// On the library page a paper no longer saved (不相关, or 已收藏 clicked off) leaves the list and the count, as the
// page would show it reloaded (a post without JavaScript comes back to it so).
function leaveLibrary(form, marks) {
  const entry = form.closest("[data-library-entry]");
  if (!entry || marks.saved) return;
  entry.remove();
  const count = document.querySelector("[data-library-count]");
  if (count) {
    const total = Math.max(0, Number(count.dataset.total) - 1);
    count.dataset.total = String(total);
    count.textContent = count.dataset.text.replace("{total}", String(total));
  }
}
