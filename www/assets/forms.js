// Form helpers shared by the pages: field errors taken from the API's JSON
// errors, announced to screen readers, and busy states.

// The field an API error message is about: authd names it first
// ("username is required", "email must be ...", "username already exists"),
// or in a "field" member. Returns the input, or null.
export function fieldFor(form, result) {
  const data = result.data || {};
  const names = [...form.elements].filter((el) => el.name).map((el) => el.name);
  if (typeof data.field === "string" && names.includes(data.field)) return form.elements[data.field];
  const first = (data.error || "").split(/[\s:]/, 1)[0];
  return names.includes(first) ? form.elements[first] : null;
}

export function clearErrors(form) {
  for (const el of form.elements) {
    if (!el.name) continue;
    el.removeAttribute("aria-invalid");
    const note = document.getElementById(`${el.id}-error`);
    if (note) { note.textContent = ""; note.hidden = true; }
  }
  const summary = form.querySelector(".form-error");
  if (summary) summary.textContent = "";
}

// Shows `message` under `input` and moves focus there; without an input, in
// the form's alert.
export function showError(form, message, input = null) {
  const summary = form.querySelector(".form-error");
  if (input) {
    input.setAttribute("aria-invalid", "true");
    const note = document.getElementById(`${input.id}-error`);
    if (note) { note.textContent = message; note.hidden = false; }
    input.focus();
  }
  // The message goes under the field, or, for the form as a whole, into its
  // alert (role="alert": read out as it appears).
  if (summary) summary.textContent = input ? "" : message;
}

export function setBusy(form, busy, busyLabel) {
  const button = form.querySelector('button[type="submit"]');
  if (!button) return;
  if (busy) {
    button.dataset.label = button.textContent;
    button.textContent = busyLabel;
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
  } else {
    if (button.dataset.label) button.textContent = button.dataset.label;
    button.disabled = false;
    form.removeAttribute("aria-busy");
  }
}

export function values(form) {
  return Object.fromEntries(new FormData(form).entries());
}
