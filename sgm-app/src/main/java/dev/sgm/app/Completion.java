package dev.sgm.app;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sgm completion}: a bash/zsh completion script. */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = "Print a bash/zsh completion script: source <(sgm completion).")
final class Completion implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getOut().print(AutoComplete.bash("sgm", spec.parent().commandLine()));
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
