package dev.sgm.tck;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a profile's suite while the kit runs against a target that does not advertise the profile,
 * with the reason a suite gives when it checks the capability itself; and skips it when no run of
 * the kit is under way, since its client is the kit's target. Every {@link ProfileSuite} carries
 * it, so that a plugin's suite need not check its capability to be skipped rightly, nor fail when a
 * build tool that scans every class meets it.
 */
public final class ProfileCondition implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (KitRunner.target() == null) {
      return ConditionEvaluationResult.disabled(
          "a profile's suite runs in the conformance kit, against the kit's target");
    }
    String reason = context.getTestClass().map(KitRunner::skipReason).orElse(null);
    return reason == null
        ? ConditionEvaluationResult.enabled("the target advertises the profile")
        : ConditionEvaluationResult.disabled(reason);
  }
}
