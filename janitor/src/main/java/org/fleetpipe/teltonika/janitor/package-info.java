/**
 * The registry janitor: every instance evicts {@code connections:registry} entries of instances
 * whose heartbeat expired. Arrives with the janitor issue; the module exists so the build has its
 * final shape.
 */
package org.fleetpipe.teltonika.janitor;
