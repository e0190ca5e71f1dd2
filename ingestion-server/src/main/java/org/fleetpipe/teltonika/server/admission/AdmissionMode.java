package org.fleetpipe.teltonika.server.admission;

/** Which well-formed IMEIs may log in; the deny-list applies in both modes. */
public enum AdmissionMode {
    /** Every IMEI not on the deny-list. */
    OPEN("open"),
    /** Only IMEIs on the allow-list (and not on the deny-list). */
    ALLOW_LIST("allow-list");

    private final String label;

    AdmissionMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The mode for a setting value, or null. */
    public static AdmissionMode of(String text) {
        for (AdmissionMode m : values()) {
            if (m.label.equalsIgnoreCase(text.trim())) {
                return m;
            }
        }
        return null;
    }
}
