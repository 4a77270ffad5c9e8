/** A Map or a WeakMap: what `cached` keeps its values in. */
interface Store<K, V> {
  get(key: K): V | undefined
  set(key: K, value: V): unknown
}

/** The value `store` holds for `key`, made by `make` (and kept there) the first time it is asked for. */
export function cached<K, V>(store: Store<K, V>, key: K, make: () => V): V {
  let value = store.get(key)
  if (value === undefined) {
    value = make()
    store.set(key, value)
  }
  return value
}
