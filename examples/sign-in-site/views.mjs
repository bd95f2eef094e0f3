// The pages a tool's users see, and the words for every outcome: HTML only, no request handling (server.mjs).
// The brand slots a tool fills: its name on every page, and who resets a forgotten password.
export const SITE_NAME = process.env.SITE_NAME || 'Example Tool';
export const OWNER_NAME = process.env.OWNER_NAME || `the ${SITE_NAME} team`;

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1d21;background:#eef0f3}
header{background:#1f4e8c;color:#fff;padding:.75rem 1.25rem}
header p{margin:0 auto;max-width:26rem;font-weight:600;font-size:1.1rem}
main{max-width:26rem;margin:2rem auto;padding:1.5rem 1.25rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px #0002}
@media (max-width:28rem){main{margin:0;border-radius:0;box-shadow:none}}
h1{font-size:1.4rem;line-height:1.25;margin:0 0 1rem}
label{display:block;margin:.9rem 0 .25rem;font-weight:600}
input[data-secret],input[type=email]{display:block;width:100%;padding:.6rem;font:inherit;border:1px solid #80868f;border-radius:.3rem}
label.show{display:flex;gap:.5rem;align-items:center;font-weight:400;margin-top:.6rem}
button{display:block;width:100%;margin-top:1.25rem;padding:.7rem;font:inherit;font-weight:600;color:#fff;background:#1f4e8c;border:0;border-radius:.3rem;cursor:pointer}
p[role=alert]{margin:0 0 1rem;padding:.6rem .8rem;color:#7a1414;background:#fdeeee;border-left:4px solid #b42318}
.help{color:#4b5059;font-size:.95rem;margin:1.25rem 0 0}
#user{font-weight:600;overflow-wrap:anywhere}`;

// Shows the form's passwords while the box is ticked; without scripts the box stays hidden and the form still works.
const SCRIPT = `for (const box of document.querySelectorAll('[data-show]')) {
  box.closest('label').hidden = false;
  box.addEventListener('change', () => {
    for (const input of box.form.querySelectorAll('[data-secret]')) input.type = box.checked ? 'text' : 'password';
  });
}`;

/** A whole page: the brand on top, then the body. */
const page = (title, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(SITE_NAME)}</title><style>${STYLE}</style></head>
<body><header><p>${escapeHtml(SITE_NAME)}</p></header><main>${body}</main><script>${SCRIPT}</script></body></html>`;

const csrfField = (csrf) => `<input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">`;
const alert = (message) => (message ? `<p role="alert">${escapeHtml(message)}</p>` : '');
const showPasswords = (label) => `<label class="show" hidden><input type="checkbox" data-show> ${label}</label>`;
const forgotten = (what) => `<p class="help">${what} Ask ${escapeHtml(OWNER_NAME)} to reset it.</p>`;

export const signInPage = ({ csrf, message = '', email = '' }) =>
  page(
    'Sign in',
    `<h1>Sign in</h1>${alert(message)}
<form method="post" action="/sign-in">${csrfField(csrf)}
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" value="${escapeHtml(email)}" required>
<label for="password">Password</label><input id="password" name="password" type="password" data-secret autocomplete="current-password" required>
${showPasswords('Show password')}
<button type="submit">Sign in</button></form>
${forgotten('Forgot your password?')}`,
  );

export const newPasswordPage = ({ csrf, message = '' }) =>
  page(
    'Choose a new password',
    `<h1>Choose a new password</h1>${alert(message)}
<p>Your password was set for you by ${escapeHtml(OWNER_NAME)}, so it is not yet yours alone. Choose a new one that only you know before you go on.</p>
<form method="post" action="/new-password">${csrfField(csrf)}
<label for="current">Current password</label><input id="current" name="current" type="password" data-secret autocomplete="current-password" required>
<label for="password">New password</label><input id="password" name="password" type="password" data-secret autocomplete="new-password" required>
${showPasswords('Show passwords')}
<button type="submit">Save and continue</button></form>
<p class="help">A few unrelated words make a password that is long and easy to remember.</p>
${forgotten('Forgot the current one?')}`,
  );

export const signedInPage = ({ csrf, user }) =>
  page(
    'Signed in',
    `<h1>Signed in</h1><p>You are signed in to ${escapeHtml(SITE_NAME)} as</p><p id="user">${escapeHtml(user)}</p>
<form method="post" action="/sign-out">${csrfField(csrf)}<button type="submit">Sign out</button></form>`,
  );

export const forbiddenPage = () =>
  page('Try again', '<h1>Please try again</h1><p>This form had expired. Go back, reload the page and send it again.</p>');

export const errorPage = () => page('Something went wrong', '<h1>Something went wrong</h1><p>Please try again in a moment.</p>');

/** "12 seconds", "1 second", "3 minutes": a wait in words. */
const inWords = (seconds) => {
  if (seconds >= 120) return `${Math.ceil(seconds / 60)} minutes`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
};

export const tooManyAttempts = (seconds) => `Too many attempts: try again in ${inWords(seconds)}.`;

/** The refusals both forms share: [status, words]. */
function sharedRefusal(result) {
  switch (result.outcome) {
    case 'throttled':
      return [429, tooManyAttempts(result.retryAfterSeconds)];
    case 'locked':
      return [423, `This account is locked after too many failed attempts. Ask ${OWNER_NAME} to reset your password.`];
    case 'busy':
      return [503, `Signing in is busy right now: try again in ${inWords(result.retryAfterSeconds)}.`];
    default:
      return [500, 'Something went wrong: please try again.'];
  }
}

/** What the sign-in form says for an outcome that starts no session. */
export const signInRefusal = (result) => (result.outcome === 'wrong' ? [401, 'Wrong e-mail or password.'] : sharedRefusal(result));

/** What the new-password form says for a refused current password or new password (never the API's own text). */
export function newPasswordRefusal(result) {
  if (result.outcome === 'wrong') return [401, 'Your current password is not right. Enter the password you signed in with.'];
  if (result.outcome !== 'refused') return sharedRefusal(result);
  switch (result.reason) {
    case 'length':
      return [400, 'That new password is too short (or far too long). Choose another: a few unrelated words make a good one.'];
    case 'guessable':
      return [400, 'That new password is too easy to guess. Choose another: a few unrelated words make a good one.'];
    case 'breached':
      return [400, 'That new password has appeared in a data breach, so others may try it. Choose another.'];
    default:
      return [400, 'That new password cannot be used here. Choose another.'];
  }
}
