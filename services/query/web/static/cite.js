// The 引用 (cite) box: switch formats in place (the links work without JavaScript too, by reloading the page) and
// copy the citation with the Clipboard API; without JavaScript the text stays selectable.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const box = document.querySelector("details.cite");
  if (!box) return;
  const text = box.querySelector(".cite-text");
  const copy = box.querySelector(".cite-copy");
  const download = box.querySelector(".cite-download");
  if (navigator.clipboard) {
    copy.hidden = false;
    const label = copy.textContent;
    copy.addEventListener("click", async () => {
      await navigator.clipboard.writeText(text.value);
      copy.textContent = copy.dataset.copied;
      setTimeout(() => { copy.textContent = label; }, 2000);
    });
  }
  for (const link of box.querySelectorAll(".cite-formats a[data-format]")) {
    link.addEventListener("click", async (event) => {
      event.preventDefault();
      const url = `/api/papers/${text.dataset.paperId}/cite?format=${link.dataset.format}`;
      const response = await fetch(url);
      if (!response.ok) { window.location.href = link.href; return; }
      text.value = await response.text();
      download.href = url;
      for (const other of box.querySelectorAll(".cite-formats a[data-format]")) other.removeAttribute("aria-current");
      link.setAttribute("aria-current", "true");
    });
  }
});
