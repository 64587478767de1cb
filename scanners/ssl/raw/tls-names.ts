/** Wire codes the raw probes use and their names, so evidence reads as words, not numbers. */

/** Protocol versions as they appear on the wire. */
export const SSL2 = 0x0002;
export const SSL3 = 0x0300;
export const TLS10 = 0x0301;
export const TLS11 = 0x0302;
export const TLS12 = 0x0303;
export const TLS13 = 0x0304;

const ALERTS: Record<number, string> = {
  0: 'close_notify', 10: 'unexpected_message', 20: 'bad_record_mac', 21: 'decryption_failed', 22: 'record_overflow',
  30: 'decompression_failure', 40: 'handshake_failure', 41: 'no_certificate', 42: 'bad_certificate', 43: 'unsupported_certificate',
  44: 'certificate_revoked', 45: 'certificate_expired', 46: 'certificate_unknown', 47: 'illegal_parameter', 48: 'unknown_ca',
  49: 'access_denied', 50: 'decode_error', 51: 'decrypt_error', 60: 'export_restriction', 70: 'protocol_version',
  71: 'insufficient_security', 80: 'internal_error', 86: 'inappropriate_fallback', 90: 'user_canceled', 100: 'no_renegotiation',
  109: 'missing_extension', 110: 'unsupported_extension', 112: 'unrecognized_name', 113: 'bad_certificate_status_response',
  115: 'unknown_psk_identity', 116: 'certificate_required', 120: 'no_application_protocol',
};

/** The RFC 8446 / 5246 name of an alert description, or `alert_<n>`. */
export function alertName(description: number): string {
  return ALERTS[description] ?? `alert_${description}`;
}

const VERSIONS: Record<number, string> = { 0x0002: 'SSLv2', 0x0300: 'SSLv3', 0x0301: 'TLSv1', 0x0302: 'TLSv1.1', 0x0303: 'TLSv1.2', 0x0304: 'TLSv1.3' };

/** Node's spelling of a protocol version (`TLSv1`, `TLSv1.2`...), so raw and Node probes agree in evidence. */
export function versionName(version: number): string {
  return VERSIONS[version] ?? `0x${version.toString(16).padStart(4, '0')}`;
}

/** Hybrid post-quantum key exchange groups (draft-ietf-tls-ecdhe-mlkem, draft-tls-westerbaan-xyber768d00). */
export const PQ_GROUPS: ReadonlyArray<{ id: number; name: string }> = [
  { id: 0x11ec, name: 'X25519MLKEM768' },
  { id: 0x11eb, name: 'SecP256r1MLKEM768' },
  { id: 0x11ed, name: 'SecP384r1MLKEM1024' },
  { id: 0x6399, name: 'X25519Kyber768Draft00' },
];

const GROUPS: Record<number, string> = {
  0x0017: 'secp256r1', 0x0018: 'secp384r1', 0x0019: 'secp521r1', 0x001d: 'x25519', 0x001e: 'x448',
  0x0100: 'ffdhe2048', 0x0101: 'ffdhe3072', 0x0102: 'ffdhe4096', 0x0103: 'ffdhe6144', 0x0104: 'ffdhe8192',
  ...Object.fromEntries(PQ_GROUPS.map((g) => [g.id, g.name])),
};

/** The IANA name of a supported_groups code point, or its hex code. */
export function groupName(id: number): string {
  return GROUPS[id] ?? `0x${id.toString(16).padStart(4, '0')}`;
}
