package io.perfpin.registry;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.EventList;

/**
 * The members of a group of virtual threads that run now (selected, not ended), and their totals so far summed, each
 * as of its last unmount: what a tick shows of them before they end, when each has its final record.
 *
 * @param group   the group's name ({@link io.perfpin.export.ThreadGroupName}: {@code vt-17} is in {@code vt})
 * @param members how many run now
 * @param events  the events of {@code counts}
 */
public record RunningVirtualGroup(String group, int members, EventList events, CounterSnapshot counts) {}
