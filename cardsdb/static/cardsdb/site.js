// Small behaviours shared by every page; everything else is server-rendered (htmx swaps fragments).
"use strict";

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
