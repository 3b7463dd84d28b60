// A Gateway instance's id: random at each start, so leases, notices and messages say which process holds or sent something.
import { randomBytes } from 'node:crypto';

/** How an instance id begins; the rest is 12 random bytes in base64url (16 characters). */
const PREFIX = 'gw_';
const ID_PATTERN = /^gw_[A-Za-z0-9_-]{16}$/;

/** A fresh id for this start of a Gateway (not derived from the host or pid: two starts never share one). */
export function newGatewayInstanceId(): string {
  return `${PREFIX}${randomBytes(12).toString('base64url')}`;
}

/** Whether `value` has the shape of an instance id (read back from a row or a notice: hostile). */
export function isGatewayInstanceId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
