package io.perfpin.event;

/**
 * An event a preset asked for that this machine cannot encode, such as an Intel-only event on AMD. The preset
 * still runs; the metrics that need the event report this reason instead of a number.
 */
public record UnsupportedEvent(String event, String preset, String reason) {}
