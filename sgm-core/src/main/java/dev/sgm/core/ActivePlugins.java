package dev.sgm.core;

import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.ProfileProvider;
import dev.sgm.api.spi.RecordType;
import dev.sgm.api.spi.TransportProvider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The profiles and transports active in this process, created once at start-up: what discovery
 * advertises, which profile owns which record type, and the operations profiles add.
 */
final class ActivePlugins {
  private final Map<String, Profile> profiles;
  private final List<TransportProvider> transports;
  private final Map<String, Profile> ownerByType = new LinkedHashMap<>();
  private final Map<String, ProfileOperation> operations = new LinkedHashMap<>();
  private final List<OperationDescriptor> descriptors = new ArrayList<>();
  private final Map<String, DiscoveryDocument.OwnedType> recordTypes = new LinkedHashMap<>();

  ActivePlugins(Map<String, Profile> profiles, List<TransportProvider> transports) {
    this.profiles = new LinkedHashMap<>(profiles);
    this.transports = List.copyOf(transports);
    profiles.forEach(
        (name, profile) -> {
          for (RecordType type : profile.recordTypes()) {
            Profile other = ownerByType.putIfAbsent(type.name(), profile);
            if (other != null) {
              throw PluginLoader.startupError(
                  "record type '"
                      + type.name()
                      + "' is claimed by two profiles, one of them '"
                      + name
                      + "'");
            }
            recordTypes.put(
                type.name(), new DiscoveryDocument.OwnedType(name, type.dataSchema().deepCopy()));
          }
          for (ProfileOperation op : profile.operations()) {
            if (operations.putIfAbsent(op.name(), op) != null
                || CoreOperations.named(op.name()) != null) {
              throw PluginLoader.startupError(
                  "operation '" + op.name() + "' is offered twice, once by profile '" + name + "'");
            }
            descriptors.add(
                new OperationDescriptor(
                    op.name(),
                    op.title(),
                    op.description(),
                    name,
                    op.requestSchema(),
                    op.responseSchema(),
                    op.effects()));
          }
        });
  }

  /** Creates the profiles of the selected providers, in order. */
  static Map<String, Profile> create(
      List<ProfileProvider> providers,
      dev.sgm.api.spi.Config config,
      dev.sgm.api.spi.ProfileContext context) {
    Map<String, Profile> created = new LinkedHashMap<>();
    for (ProfileProvider provider : providers) {
      created.put(provider.name(), provider.create(config, context));
    }
    return created;
  }

  /** The active profiles, in order. */
  List<Profile> profiles() {
    return List.copyOf(profiles.values());
  }

  List<String> profileNames() {
    return List.copyOf(profiles.keySet());
  }

  Map<String, List<String>> profileFeatures() {
    Map<String, List<String>> features = new LinkedHashMap<>();
    profiles.forEach((name, profile) -> features.put(name, List.copyOf(profile.features())));
    return features;
  }

  List<TransportProvider> transports() {
    return transports;
  }

  List<String> transportNames() {
    return transports.stream().map(TransportProvider::name).toList();
  }

  /** The profile that owns {@code type}'s data schema, or null when core alone handles it. */
  Profile ownerOf(String type) {
    return ownerByType.get(type);
  }

  /** The credential detectors the active profiles add, each kind checked. */
  List<dev.sgm.api.spi.SecretDetector> secretDetectors() {
    List<dev.sgm.api.spi.SecretDetector> detectors = new ArrayList<>();
    profiles.forEach(
        (name, profile) -> {
          for (dev.sgm.api.spi.SecretDetector detector : profile.secretDetectors()) {
            for (String kind : detector.kinds()) {
              if (!dev.sgm.api.spi.SecretDetector.KIND.matcher(kind).matches()) {
                throw new IllegalStateException(
                    "profile '"
                        + name
                        + "': secret kind '"
                        + kind
                        + "' must match [a-z][a-z0-9_]*");
              }
            }
            detectors.add(detector);
          }
        });
    return detectors;
  }

  boolean keepsHistory() {
    return profiles.values().stream().anyMatch(Profile::keepsHistory);
  }

  ProfileOperation operation(String name) {
    return operations.get(name);
  }

  List<String> operationNames() {
    return new ArrayList<>(operations.keySet());
  }

  /** How discovery describes each profile operation, in the order of the profiles. */
  List<OperationDescriptor> operationDescriptors() {
    return List.copyOf(descriptors);
  }

  /** Each profile-owned record type with its profile and data schema. */
  Map<String, DiscoveryDocument.OwnedType> recordTypes() {
    return recordTypes;
  }
}
