import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The server side of SCRAM-SHA-256 (RFC 5802/7677), PostgreSQL's password exchange: the password
 * never crosses the wire, and every client library (libpq, so psql and QGIS; pg; JDBC) speaks it.
 * Without TLS there is no channel binding, so the client's GS2 header is `n,,` (or `y,,`).
 */

const ITERATIONS = 4096;

const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();
const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest();

/** One attribute (`r=…`) of a SCRAM message. */
function attribute(message: string, name: string): string | undefined {
  for (const part of message.split(',')) if (part.startsWith(`${name}=`)) return part.slice(name.length + 1);
  return undefined;
}

export class ScramExchange {
  readonly #password: string;
  #clientFirstBare = '';
  #serverFirst = '';
  #nonce = '';
  readonly #salt = randomBytes(16);

  constructor(password: string) {
    this.#password = password.normalize('NFKC');
  }

  /** The server-first message for the client-first one, or undefined when it is malformed. */
  first(clientFirst: string): string | undefined {
    const match = /^[ny],[^,]*,(.*)$/.exec(clientFirst);
    if (!match?.[1]) return undefined;
    this.#clientFirstBare = match[1];
    const clientNonce = attribute(this.#clientFirstBare, 'r');
    if (!clientNonce) return undefined;
    this.#nonce = clientNonce + randomBytes(18).toString('base64');
    this.#serverFirst = `r=${this.#nonce},s=${this.#salt.toString('base64')},i=${ITERATIONS}`;
    return this.#serverFirst;
  }

  /** The server-final message when the client's proof is right, undefined when the password is wrong. */
  final(clientFinal: string): string | undefined {
    const proof = attribute(clientFinal, 'p');
    if (proof === undefined || attribute(clientFinal, 'r') !== this.#nonce) return undefined;
    const withoutProof = clientFinal.slice(0, clientFinal.lastIndexOf(',p='));
    const salted = pbkdf2Sync(this.#password, this.#salt, ITERATIONS, 32, 'sha256');
    const storedKey = sha256(hmac(salted, 'Client Key'));
    const authMessage = `${this.#clientFirstBare},${this.#serverFirst},${withoutProof}`;
    const signature = hmac(storedKey, authMessage);
    const given = Buffer.from(proof, 'base64');
    if (given.length !== signature.length) return undefined;
    const clientKey = Buffer.from(given.map((byte, i) => byte ^ (signature[i] ?? 0)));
    if (!timingSafeEqual(sha256(clientKey), storedKey)) return undefined;
    return `v=${hmac(hmac(salted, 'Server Key'), authMessage).toString('base64')}`;
  }
}
