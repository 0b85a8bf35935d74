package dev.sgm.tck;

/**
 * The contract's rules beyond the seed cases, a suite per section of the contract so that reports
 * group by section: the record (§1, {@link ContractRecordTck}), scope and identity (§2), the
 * operations (§3), discovery (§4) and errors (§5). Extend this class and give the client; every
 * section runs against it.
 *
 * <p>The sections extend one another in the contract's order, this class last, rather than being
 * nested here: build tools run every test a class inherits, but not always the tests nested in a
 * class it inherits (Maven Surefire does not), and a kit that silently ran nothing would pass.
 */
public abstract class ContractTck extends ContractErrorsTck {}
