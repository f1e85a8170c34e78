package io.trailproof.core.policy;

/**
 * {@code temporal}: an event whose {@code timestamp} (in UTC) falls outside the allowed hours, or on
 * a day not allowed, is a violation. No state.
 */
final class TemporalCheck extends RuleCheck {

    private static final String[] DAYS = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

    private final RuleDefinition.Temporal def;

    TemporalCheck(Rule rule, RuleDefinition.Temporal def) {
        super(rule);
        this.def = def;
    }

    @Override
    void accept(PolicyEvent e) {
        long seconds = Math.floorDiv(e.timestampMicros(), 1_000_000);
        long day = Math.floorDiv(seconds, 86_400);
        int hour = (int) (Math.floorMod(seconds, 86_400) / 3600);
        int weekday = (int) Math.floorMod(day + 4, 7); // 1970-01-01 was a Thursday; 0 = Sunday
        boolean hourOk = def.hourAllowed(hour);
        boolean dayOk = def.dayAllowed(weekday);
        if (!hourOk || !dayOk) {
            String why = !hourOk ? "outside the allowed hours [" + def.startHour() + ", "
                    + (def.endHour() == 0 ? 24 : def.endHour()) + ") UTC" : "on a day not allowed";
            violation(e, "timestamp " + Texts.instant(e.timestampMicros()) + " (" + DAYS[weekday] + ") is " + why);
        }
    }
}
