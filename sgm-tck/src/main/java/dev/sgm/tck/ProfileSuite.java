package dev.sgm.tck;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A profile's conformance suite, as the kit ({@link KitRunner}) finds it through {@link
 * java.util.ServiceLoader}: the kit runs it when the target's discovery advertises the profile's
 * capability and reports it skipped, with that reason, when it does not; a failure makes the target
 * not conforming, since the seeds verify each profile an implementation advertises.
 *
 * <p>The suite is a JUnit test class that implements this interface, usually its own provider,
 * whose client is the server under test as {@link KitRunner#target()} gives it while the kit runs
 * (a {@link TckSupport} whose {@code client()} returns it). The kit's own profiles come through it
 * as a plugin's does. A plugin that adds a profile ships its suite with {@code provides
 * dev.sgm.tck.ProfileSuite with ...} in its module-info and the same class in {@code
 * META-INF/services/dev.sgm.tck.ProfileSuite}, so that it is found on the module path and on the
 * class path alike.
 */
@ExtendWith(ProfileCondition.class)
public interface ProfileSuite {
  /** The capability that names the profile in discovery's {@code capabilities}. */
  String capability();

  /**
   * The test class the kit runs; this provider's own class unless it names another. It implements
   * this interface, whose condition skips it when the target does not advertise the capability.
   */
  default Class<? extends ProfileSuite> suite() {
    return getClass();
  }

  /** How the kit's verdict names the suite. */
  default String title() {
    return capability() + " profile";
  }
}
