// Small behaviours shared by every page; everything else is server-rendered (htmx swaps fragments).
"use strict";

// Sizes and colours the server computes come as data attributes (data-width: a percentage, data-colour: a
// background) and are applied here through the CSSOM: the site's Content-Security-Policy refuses style
// attributes. Run on the page as loaded (this script is deferred) and on every fragment htmx swaps in.
function applyComputedStyles(root) {
  for (const node of root.querySelectorAll("[data-width]")) node.style.width = `${node.dataset.width}%`;
  for (const node of root.querySelectorAll("[data-colour]")) node.style.backgroundColor = node.dataset.colour;
}
applyComputedStyles(document);
document.addEventListener("htmx:load", (event) => applyComputedStyles(event.detail.elt));

// <button data-copy="#field-id">: copy that field's value (or text) to the clipboard and say so.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = "value" in source ? source.value : source.textContent;
  const done = (said) => {
    const status = button.parentElement.querySelector(".copy-status");
    if (status) status.textContent = said;
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => done("Copied."), () => done("Select the text and copy it."));
  } else {
    if (source.select) source.select();
    done(document.execCommand && document.execCommand("copy") ? "Copied." : "Select the text and copy it.");
  }
});
