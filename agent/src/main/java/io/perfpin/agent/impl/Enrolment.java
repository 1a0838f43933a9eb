package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadEvents;
import io.perfpin.registry.ThreadRegistry;

/**
 * Turns what the woven code reports into enrolments: a thread entering {@code run()} is pinned and counted
 * when the rules name it; an annotated task's thread while the task runs. The first enrolment of a thread
 * wins: an annotated task on a thread that a rule already counts changes nothing.
 */
final class Enrolment implements ThreadEvents {
    private final ThreadRegistry registry;
    private final ThreadRules rules;
    private final AnnotationValues annotations;
    private final MethodCounting methods;

    Enrolment(ThreadRegistry registry, ThreadRules rules, AnnotationValues annotations, MethodCounting methods) {
        this.registry = registry;
        this.rules = rules;
        this.annotations = annotations;
        this.methods = methods;
    }

    @Override
    public boolean runStarting(Thread thread) {
        if (thread != Thread.currentThread() || registry.isEnrolled(thread)) {
            return false; // run() called as a plain method, or a nested run() of an enrolled thread
        }
        String name = thread.getName();
        registry.threadStarting(rules.inheritsPin(name));
        return rules.enrols(name) && registry.enrolCurrentThread(null, rules.placementFor(name));
    }

    @Override
    public void runEnded(Thread thread) {
        registry.threadEnded(thread);
        methods.threadEnded(thread);
    }

    @Override
    public Object taskStarting(String placement, String events) {
        Thread thread = Thread.currentThread();
        if (registry.isEnrolled(thread)) {
            return null;
        }
        return registry.enrolCurrentThread(annotations.events(events), annotations.placement(placement))
                ? thread : null;
    }

    @Override
    public void taskEnded(Object token) {
        registry.leave((Thread) token);
    }

    @Override
    public Object methodEntering(int method) {
        return methods.entering(method);
    }

    @Override
    public void methodExited(int method, Object token) {
        methods.exited(method, token);
    }
}
