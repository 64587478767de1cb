/** The host of a raw connection, refused unless it is an IP address (see address-only.mjs). */
export function addressOnly(host: string): string;
