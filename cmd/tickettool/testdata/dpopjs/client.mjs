// An independent DPoP client (panva's dpop, pinned in package.json) for
// cmd/tickettool's interop test: it makes an ES256 key pair, prints its
// public JWK and RFC 7638 thumbprint as one JSON line, reads the ticket
// bound to it from standard input, then sends each request named on the
// command line through the proxy as RFC 9449 says (a fresh proof per
// request, the last DPoP-Nonce the server gave, one retry on
// use_dpop_nonce) and prints one JSON line per response.
//
// usage: node client.mjs BASE PUBLIC METHOD:PATH[:BODY]...
//   BASE    where the proxy listens (http://127.0.0.1:PORT)
//   PUBLIC  the proxy's public URL (the proofs' htu is PUBLIC + PATH)
import { generateKeyPair, generateProof, calculateThumbprint } from 'dpop'
import { createInterface } from 'node:readline'

const [base, publicURL, ...calls] = process.argv.slice(2)
const keypair = await generateKeyPair('ES256')
const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', keypair.publicKey)
console.log(JSON.stringify({ jwk: { kty, crv, x, y }, thumbprint: await calculateThumbprint(keypair.publicKey) }))

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
const ticket = (await lines.next()).value.trim()

let nonce
async function send(method, path, body) {
  const sentNonce = nonce
  const proof = await generateProof(keypair, publicURL + path, method, nonce, ticket)
  const headers = { authorization: `DPoP ${ticket}`, dpop: proof }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(base + path, { method, headers, body })
  const got = res.headers.get('dpop-nonce')
  if (got) nonce = got
  return {
    method, path, status: res.status, sent_nonce: sentNonce ?? null, dpop_nonce: got,
    challenge: res.headers.get('www-authenticate'), body: await res.text(),
  }
}

for (const call of calls) {
  const [method, path, ...rest] = call.split(':')
  const body = rest.length ? rest.join(':') : undefined
  let r = await send(method, path, body)
  console.log(JSON.stringify(r))
  if (r.status === 401 && (r.challenge ?? '').includes('use_dpop_nonce')) {
    console.log(JSON.stringify(await send(method, path, body)))
  }
}
process.exit(0)
