// A real OpenID provider for opledger's sign-in tests and demo: panva's oidc-provider (OpenID
// Certified, with Back-Channel Logout 1.0), run on the Node 22 it needs.
//
//   node provider.mjs [--port 0] [--host 127.0.0.1] [--config clients.json] [--id-token-ttl 3600]
//                     [--console http://127.0.0.1:3000]
//
// It prints one JSON line on standard output once it listens:
//   {"issuer":"http://127.0.0.1:PORT","port":PORT}
// and serves the provider at the issuer, with these control routes for tests (loopback only):
//   POST /control/clients            {client_id, client_secret, redirect_uris, backchannel_logout_uri?}
//                                    adds or replaces a client (a tenant's application)
//   PUT  /control/accounts/:sub      {email?, email_verified?, name?, groups?} a person's claims;
//                                    `groups` may be a list or, to test refusals, a string
//   POST /control/rotate-key         signs with a new key from now on and publishes only it
//   POST /control/unpublished-key    signs with a new key that its JWKS does not publish
//   POST /control/id-token-ttl       {seconds} the lifetime of ID tokens issued from now on
//   POST /control/token-delay        {ms} holds each token endpoint answer back this long after
//                                    it is made (with a 1 s lifetime: ID tokens that arrive expired)
//   POST /control/backchannel-logout {client_id, sub} sends that client a signed logout token
//
// The config file (or the routes above) gives the clients: {"clients": [...], "accounts": {...}};
// `{console}` in a client's URLs stands for --console (where opledger's console is).
// Sign-in uses the provider's development interactions: any login name is the subject, any password
// is accepted, then a consent page.

import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import Provider from 'oidc-provider';

const { values: options } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    config: { type: 'string' },
    'id-token-ttl': { type: 'string', default: '3600' },
    console: { type: 'string', default: 'http://127.0.0.1:3000' },
  },
});

const initial = options.config
  ? JSON.parse(readFileSync(options.config, 'utf8').replaceAll('{console}', options.console.replace(/\/$/, '')))
  : {};

const state = {
  clients: new Map((initial.clients ?? []).map((client) => [client.client_id, client])),
  accounts: new Map(Object.entries(initial.accounts ?? {})),
  idTokenTtl: Number(options['id-token-ttl']),
  tokenDelayMs: 0,
  signingKey: newKey(),
  // The keys the JWKS endpoint publishes; `null` publishes the signing key.
  published: null,
  provider: null,
  handler: null,
};

function newKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, use: 'sig', alg: 'RS256', kid: `key-${Date.now()}-${Math.random().toString(36).slice(2, 8)}` };
}

function publicPart(jwk) {
  const { kty, n, e, use, alg, kid } = jwk;
  return { kty, n, e, use, alg, kid };
}

function claimsOf(sub) {
  const account = state.accounts.get(sub) ?? {};
  return {
    sub,
    email: account.email ?? (sub.includes('@') ? sub : `${sub}@example.com`),
    email_verified: account.email_verified ?? true,
    name: account.name ?? sub,
    groups: account.groups ?? [],
  };
}

function build(issuer) {
  const provider = new Provider(issuer, {
    clients: [...state.clients.values()].map((client) => ({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...client,
    })),
    jwks: { keys: [state.signingKey] },
    findAccount: (ctx, sub) => ({
      accountId: sub,
      claims: () => claimsOf(sub),
    }),
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups'],
    // The claims a scope asks for go into the ID token itself, as most company providers do.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    ttl: {
      IdToken: () => state.idTokenTtl,
      AccessToken: 600,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    cookies: { keys: ['opledger-test-provider-cookie-key'] },
    // The relying party under test listens on this machine, which the provider's own guard against
    // requests to special-use addresses would refuse: back-channel logouts go out without it.
    fetch: (url, init) => {
      const { dispatcher, ...rest } = init;
      return globalThis.fetch(url, rest);
    },
  });
  state.handler = provider.callback();
  provider.on('backchannel.error', (ctx, error, client) => {
    process.stderr.write(`back-channel logout to ${client.clientId} failed: ${error.message}\n`);
  });
  return provider;
}

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function answer(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

let issuer;

async function control(request, response, path) {
  const body = await readJson(request);
  if (request.method === 'POST' && path === '/control/clients') {
    state.clients.set(body.client_id, body);
    state.provider = build(issuer);
    return answer(response, 200, { client_id: body.client_id });
  }
  const account = path.match(/^\/control\/accounts\/(.+)$/);
  if (request.method === 'PUT' && account) {
    state.accounts.set(decodeURIComponent(account[1]), body);
    return answer(response, 200, claimsOf(decodeURIComponent(account[1])));
  }
  if (request.method === 'POST' && path === '/control/rotate-key') {
    state.signingKey = newKey();
    state.published = null;
    state.provider = build(issuer);
    return answer(response, 200, { kid: state.signingKey.kid });
  }
  if (request.method === 'POST' && path === '/control/unpublished-key') {
    const shown = state.published ?? [publicPart(state.signingKey)];
    state.signingKey = newKey();
    state.published = shown;
    state.provider = build(issuer);
    return answer(response, 200, { kid: state.signingKey.kid });
  }
  if (request.method === 'POST' && path === '/control/id-token-ttl') {
    state.idTokenTtl = Number(body.seconds);
    return answer(response, 200, { seconds: state.idTokenTtl });
  }
  if (request.method === 'POST' && path === '/control/token-delay') {
    state.tokenDelayMs = Number(body.ms);
    return answer(response, 200, { ms: state.tokenDelayMs });
  }
  if (request.method === 'POST' && path === '/control/backchannel-logout') {
    const client = await state.provider.Client.find(body.client_id);
    if (!client) return answer(response, 404, { error: `no client ${body.client_id}` });
    try {
      await client.backchannelLogout(body.sub, body.sid);
      return answer(response, 200, { delivered: true });
    } catch (error) {
      return answer(response, 502, { delivered: false, error: error.message });
    }
  }
  return answer(response, 404, { error: `no control route ${request.method} ${path}` });
}

const server = createServer((request, response) => {
  const path = new URL(request.url, 'http://provider').pathname;
  if (path.startsWith('/control/')) {
    control(request, response, path).catch((error) => answer(response, 500, { error: error.message }));
    return;
  }
  if (path === '/jwks' && state.published) {
    answer(response, 200, { keys: state.published });
    return;
  }
  if (path === '/token' && state.tokenDelayMs > 0) {
    const end = response.end.bind(response);
    const delay = state.tokenDelayMs;
    response.end = (...args) => {
      setTimeout(() => end(...args), delay);
      return response;
    };
  }
  state.handler(request, response);
});

server.listen(Number(options.port), options.host, () => {
  const { port } = server.address();
  issuer = `http://${options.host}:${port}`;
  state.provider = build(issuer);
  process.stdout.write(`${JSON.stringify({ issuer, port })}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
// A test that dies leaves no provider behind: standard input closing (its parent gone) stops it.
if (process.env.OPLEDGER_PROVIDER_STOP_ON_EOF === '1') {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
