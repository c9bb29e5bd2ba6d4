/// The version every HealthStore executable and the server's Hello answer report.
public enum HealthStoreVersion {
    public static let string = "0.2.0"
}
