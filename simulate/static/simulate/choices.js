// A field that one option of a choice reads chooses that option as soon as something is typed or picked in it
// (an army code chooses "Army code", a saved army "One of my saved armies"): what a person fills in is what
// plays. The field says which as data-choice="NAME=VALUE": the radio buttons, select or tick box NAME of its
// form is set to VALUE (an empty VALUE unticks a tick box). The server refuses a form whose choice leaves out
// an input filled in (simulate/pages/choices.py), so without scripts nothing is silently ignored either.
"use strict";

(() => {
  const changed = (control) => control.dispatchEvent(new Event("change", { bubbles: true }));

  const choose = (event) => {
    const field = event.target;
    if (!(field instanceof Element) || !field.dataset.choice || !field.form) return;
    if (!field.value || !field.value.trim()) return;  // an emptied field chooses nothing
    const at = field.dataset.choice.indexOf("=");
    const name = field.dataset.choice.slice(0, at);
    const value = field.dataset.choice.slice(at + 1);
    const control = field.form.elements.namedItem(name);
    if (!control) return;
    const radios = control instanceof RadioNodeList ? [...control] : control.type === "radio" ? [control] : null;
    if (radios) {
      const radio = radios.find((r) => r.value === value);
      if (radio && !radio.checked) {
        radio.checked = true;
        changed(radio);
      }
    } else if (control.type === "checkbox") {
      if (control.checked !== (value !== "")) {
        control.checked = value !== "";
        changed(control);
      }
    } else if (control.value !== value) {
      control.value = value;
      changed(control);
    }
  };

  document.addEventListener("input", choose);
  document.addEventListener("change", choose);
})();
