/**
 * @peculiar/x509 registers its services with tsyringe, which refuses to load without
 * a `Reflect.getMetadata` polyfill. It only stores and reads back decorator metadata,
 * so this minimal map-backed shim is enough and avoids another dependency. Import it
 * before @peculiar/x509.
 */
type Target = object;
const store = new WeakMap<Target, Map<string | symbol | undefined, Map<unknown, unknown>>>();

function table(target: Target, property: string | symbol | undefined, create: boolean): Map<unknown, unknown> | undefined {
  let byProperty = store.get(target);
  if (!byProperty) {
    if (!create) return undefined;
    byProperty = new Map();
    store.set(target, byProperty);
  }
  let entries = byProperty.get(property);
  if (!entries && create) {
    entries = new Map();
    byProperty.set(property, entries);
  }
  return entries;
}

const reflect = Reflect as unknown as Record<string, unknown>;
if (typeof reflect.getMetadata !== 'function') {
  const getOwnMetadata = (key: unknown, target: Target, property?: string | symbol) => table(target, property, false)?.get(key);
  const getMetadata = (key: unknown, target: Target, property?: string | symbol): unknown => {
    for (let t: Target | null = target; t; t = Object.getPrototypeOf(t) as Target | null) {
      const found = table(t, property, false);
      if (found?.has(key)) return found.get(key);
    }
    return undefined;
  };
  Object.assign(reflect, {
    defineMetadata: (key: unknown, value: unknown, target: Target, property?: string | symbol) => {
      table(target, property, true)!.set(key, value);
    },
    getOwnMetadata,
    getMetadata,
    hasMetadata: (key: unknown, target: Target, property?: string | symbol) => getMetadata(key, target, property) !== undefined,
    metadata: (key: unknown, value: unknown) => (target: Target, property?: string | symbol) => {
      table(target, property, true)!.set(key, value);
    },
  });
}
