// A small sign-in site on Express 5 through @white-label-user-management/sign-in (see README.md); its pages are in views.mjs.
// Sessions: express-session, a new session id at every sign-in, the module's `session` value kept in it
// and checked (checkSession) on every request, so a reset or "sign out everywhere" signs the browser out;
// CSRF: csrf-sync (a synchroniser token per session on every form); a limit per client address in front of the module (ADDRESS_LIMIT); the
// module's device cookie kept apart from the session, one per account, at most DEVICE_COOKIE.perBrowser.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { ADDRESS_LIMIT, createSignIn, DEVICE_COOKIE, descriptorFromFile, deviceCookieName } from '@white-label-user-management/sign-in';
import cookieParser from 'cookie-parser';
import { csrfSync } from 'csrf-sync';
import express from 'express';
import session from 'express-session';
import {
  errorPage,
  forbiddenPage,
  newPasswordPage,
  newPasswordRefusal,
  signedInPage,
  signInPage,
  signInRefusal,
  tooManyAttempts,
} from './views.mjs';

const { SIGN_IN_DESCRIPTOR, TLS_KEY, TLS_CERT, SESSION_SECRET } = process.env;
const PORT = Number(process.env.PORT ?? 4443);
if (!SIGN_IN_DESCRIPTOR || !TLS_KEY || !TLS_CERT || !SESSION_SECRET) {
  console.error('Set SIGN_IN_DESCRIPTOR, TLS_KEY, TLS_CERT and SESSION_SECRET (see README.md)');
  process.exit(2);
}
const descriptor = descriptorFromFile(SIGN_IN_DESCRIPTOR);
const users = createSignIn({ descriptor });
// The owner this site serves: its own configuration (here npm start's development owner), never the request.
const ownerId = process.env.OWNER_ID ?? (await descriptor.load()).developmentOwner?.ownerId;
if (!ownerId) {
  console.error('Set OWNER_ID (npm run -s admin -- show-owner <owner e-mail>)');
  process.exit(2);
}

const app = express();
app.disable('x-powered-by');
// Behind a reverse proxy, Express's own `trust proxy` setting (e.g. `loopback`), so that req.ip is the client's address.
if (process.env.TRUST_PROXY) app.set('trust proxy', process.env.TRUST_PROXY);
app.use(cookieParser());
app.use(express.urlencoded({ extended: false, limit: '8kb' }));
app.use(
  session({
    name: '__Host-session',
    secret: SESSION_SECRET,
    resave: false,
    saveUninitialized: true,
    cookie: { httpOnly: true, secure: true, sameSite: 'lax', path: '/', maxAge: 8 * 3600 * 1000 },
  }),
);
const { csrfSynchronisedProtection, generateToken } = csrfSync({
  getTokenFromRequest: (req) => req.body?._csrf,
});
app.use(csrfSynchronisedProtection);

// Every request of a signed-in session asks the module whether it still holds: after a reset of the password, a
// change from another browser, the user's deletion or "sign out everywhere", the browser is signed out here.
app.use(async (req, _res, next) => {
  if (!req.session.user) return next();
  try {
    const { outcome } = await users.checkSession({ ownerId, email: req.session.user, session: req.session.signInSession });
    if (outcome === 'valid') return next();
    req.session.regenerate((error) => next(error));
  } catch (error) {
    next(error);
  }
});

/** At most ADDRESS_LIMIT.attempts sign-in and new-password posts per address per window, in this process's memory. */
const attempts = new Map();
function addressWait(address) {
  const now = Date.now();
  const entry = attempts.get(address);
  if (!entry || entry.resetAt <= now) {
    attempts.set(address, { count: 1, resetAt: now + ADDRESS_LIMIT.windowSeconds * 1000 });
    return 0;
  }
  entry.count += 1;
  return entry.count > ADDRESS_LIMIT.attempts ? Math.ceil((entry.resetAt - now) / 1000) : 0;
}

/**
 * The device cookies (DEVICE_COOKIE): one per account under deviceCookieName(ownerId, email), each as the
 * package says (its Expires, Path=/, Secure, HttpOnly, SameSite=Lax), and the order they were last used in,
 * most recent first, in one more cookie (DEVICE_ORDER: the names' account parts, dot-separated), since a
 * browser sends a cookie's value and never its expiry. On every success the account's cookie goes first and
 * any past DEVICE_COOKIE.perBrowser (the least recently used) is expired. Sign-out keeps them all.
 */
const DEVICE_ORDER = '__Host-devices';
const DEVICE_NAME = new RegExp(`^${DEVICE_COOKIE.prefix}[A-Za-z0-9_-]{16}$`);
const deviceCookieOptions = { path: '/', secure: true, httpOnly: true, sameSite: 'lax' };

/** The device cookie this browser sent for the account, if any (a string, whatever else the header held). */
function deviceCookieOf(req, email) {
  const value = req.cookies?.[deviceCookieName(ownerId, email)];
  return typeof value === 'string' ? value : undefined;
}

/** Keeps a success's fresh device cookie, first in the order, and expires those past DEVICE_COOKIE.perBrowser. */
function keepDeviceCookie(req, res, email, { deviceCookie, deviceCookieExpiresAt }) {
  const name = deviceCookieName(ownerId, email);
  const expires = new Date(deviceCookieExpiresAt);
  res.cookie(name, deviceCookie, { ...deviceCookieOptions, expires });
  const held = Object.keys(req.cookies ?? {}).filter((held) => DEVICE_NAME.test(held));
  const order = typeof req.cookies?.[DEVICE_ORDER] === 'string' ? req.cookies[DEVICE_ORDER].split('.') : [];
  // Most recent first: this account, then the order as kept, then any held cookie the order lost (as least recent).
  const ranked = [...new Set([name, ...order.map((part) => `${DEVICE_COOKIE.prefix}${part}`).filter((n) => held.includes(n)), ...held])];
  for (const dropped of ranked.slice(DEVICE_COOKIE.perBrowser)) res.clearCookie(dropped, deviceCookieOptions);
  const kept = ranked.slice(0, DEVICE_COOKIE.perBrowser).map((n) => n.slice(DEVICE_COOKIE.prefix.length));
  res.cookie(DEVICE_ORDER, kept.join('.'), { ...deviceCookieOptions, expires });
}

/** A new session id, then the user and the module's session value in it (never the id the browser came with). */
const startSession = (req, email, { session: signInSession }) =>
  new Promise((resolve, reject) =>
    req.session.regenerate((error) => {
      if (error) return reject(error);
      req.session.user = email;
      req.session.signInSession = signInSession;
      req.session.save((saved) => (saved ? reject(saved) : resolve()));
    }),
  );

app.get('/', (req, res) => {
  const csrf = generateToken(req);
  if (req.session.user) return res.send(signedInPage({ csrf, user: req.session.user }));
  if (req.session.mustReset) return res.send(newPasswordPage({ csrf }));
  res.send(signInPage({ csrf }));
});

app.post('/sign-in', async (req, res, next) => {
  try {
    const email = String(req.body.email ?? '');
    const password = String(req.body.password ?? '');
    const wait = addressWait(req.ip ?? '');
    if (wait > 0) return res.status(429).send(signInPage({ csrf: generateToken(req), message: tooManyAttempts(wait), email }));
    const result = await users.signIn({ ownerId, email, password, deviceCookie: deviceCookieOf(req, email) });
    if (result.outcome === 'ok') {
      keepDeviceCookie(req, res, email, result);
      await startSession(req, email, result);
      return res.redirect(303, '/');
    }
    if (result.outcome === 'must-reset') {
      keepDeviceCookie(req, res, email, result);
      req.session.mustReset = email;
      return res.redirect(303, '/');
    }
    const [status, message] = signInRefusal(result);
    res.status(status).send(signInPage({ csrf: generateToken(req), message, email }));
  } catch (error) {
    next(error);
  }
});

app.post('/new-password', async (req, res, next) => {
  try {
    const email = req.session.mustReset;
    if (!email) return res.redirect(303, '/');
    const wait = addressWait(req.ip ?? '');
    if (wait > 0) return res.status(429).send(newPasswordPage({ csrf: generateToken(req), message: tooManyAttempts(wait) }));
    const result = await users.changePassword({
      ownerId,
      email,
      currentPassword: String(req.body.current ?? ''),
      newPassword: String(req.body.password ?? ''),
      deviceCookie: deviceCookieOf(req, email),
    });
    if (result.outcome === 'changed') {
      keepDeviceCookie(req, res, email, result);
      await startSession(req, email, result);
      return res.redirect(303, '/');
    }
    const [status, message] = newPasswordRefusal(result);
    res.status(status).send(newPasswordPage({ csrf: generateToken(req), message }));
  } catch (error) {
    next(error);
  }
});

// Sign-out ends the session and keeps the device cookies: this browser stays trusted for the next sign-in.
app.post('/sign-out', (req, res, next) =>
  req.session.destroy((error) => {
    if (error) return next(error);
    res.clearCookie('__Host-session', { path: '/', secure: true, httpOnly: true, sameSite: 'lax' });
    res.redirect(303, '/');
  }),
);

// One line for any error, and a page that says nothing of it (a bad CSRF token is a 403).
app.use((error, _req, res, _next) => {
  const status = error.code === 'EBADCSRFTOKEN' || error.status === 403 ? 403 : 500;
  if (status === 500) console.error(error instanceof Error ? error.message : String(error));
  res.status(status).send(status === 403 ? forbiddenPage() : errorPage());
});

const server = createServer({ key: readFileSync(TLS_KEY), cert: readFileSync(TLS_CERT) }, app);
server.listen(PORT, '127.0.0.1', () => console.log(`Sign-in site on https://localhost:${PORT}`));
const stop = () => server.close(() => void users.close().then(() => process.exit(0)));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
