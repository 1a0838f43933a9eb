package io.perfpin.registry;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A concurrent map whose keys are threads, told apart by identity. An application's {@link Thread} subclass may define
 * {@code equals} and {@code hashCode} by value (Lombok's {@code @EqualsAndHashCode}): a map that called them would take
 * two live threads for one, so that one went uncounted and the other's end finished the first, and would run the
 * application's code on perfpin's sampler and in the hook of every thread's start.
 */
final class ThreadMap<V> {
    private final ConcurrentHashMap<Key, V> map = new ConcurrentHashMap<>();

    /** The thread itself: equal to no other, hashed as {@link System#identityHashCode}, none of its code run. */
    private record Key(Thread thread) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.thread == thread;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(thread);
        }
    }

    V get(Thread thread) {
        return map.get(new Key(thread));
    }

    boolean containsKey(Thread thread) {
        return map.containsKey(new Key(thread));
    }

    /** As {@link ConcurrentHashMap#putIfAbsent}: the value already there, else null. */
    V putIfAbsent(Thread thread, V value) {
        return map.putIfAbsent(new Key(thread), value);
    }

    V remove(Thread thread) {
        return map.remove(new Key(thread));
    }

    /** Removes the thread's entry only while it maps to {@code value}. */
    boolean remove(Thread thread, V value) {
        return map.remove(new Key(thread), value);
    }
}
