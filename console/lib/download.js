// @ts-check

/**
 * Saves a response body as a file. Downloads need the Authorization header, so they go
 * through fetch and a Blob (a plain link would need the token in its URL).
 * @param {Response} response
 * @param {string} fallbackName
 */
export async function saveResponse(response, fallbackName) {
  const disposition = response.headers.get('content-disposition') ?? '';
  const match = /filename="?([^";]+)"?/i.exec(disposition);
  const name = match?.[1] ?? fallbackName;
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked a little later: some browsers start reading the blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { name, size: blob.size };
}
