/**
 * `pending`: waiting for its first attempt; `retried`: an attempt failed and another is
 * scheduled (the spec's word); `delivered`: a 2xx arrived; `failed`: attempts exhausted.
 * Kept apart from the repository so routes never import it.
 */
export const DELIVERY_STATUSES = ['pending', 'retried', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
