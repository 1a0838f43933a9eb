package io.perfpin.cli;

import io.perfpin.options.OptionLimits;
import io.perfpin.options.PinRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --pin REGEX@PLACEMENT}, repeatable, the agent's {@code pin=}: where matching threads run. */
final class PinOptions {
    private List<PinRule> rules = new ArrayList<>();

    /** Called by the parser with the rules so far at each {@code --pin}: one too many is a usage error there. */
    @Option(
            names = "--pin",
            paramLabel = "REGEX@PLACEMENT",
            converter = Rule.class,
            description = {
                "Pin threads whose whole name matches REGEX to PLACEMENT: a CPU list like 2-3,"
                        + " isolated (an isolated CPU of their own), core (a whole core of their own) or any.",
                "Repeatable, at most " + OptionLimits.MAX_PIN_RULES + " times; the first rule that matches a"
                        + " thread places it."
            })
    void rules(List<PinRule> given) {
        OptionLimits.checkPinRules("--pin", given.size());
        rules = given;
    }

    /** The first rule that matches, as the agent applies them. */
    Optional<PinRule> ruleFor(String threadName) {
        for (PinRule rule : rules) {
            if (rule.matches(threadName)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    List<PinRule> rules() {
        return rules;
    }

    static final class Rule implements ITypeConverter<PinRule> {
        @Override
        public PinRule convert(String token) {
            return PinRule.parse(token);
        }
    }
}
