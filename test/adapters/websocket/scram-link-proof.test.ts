import { ScramLinkProof } from '../../../src/adapters/websocket/scram-link-proof';
import { LinkCredentials } from '../../../src/application/link/link-credentials';
import { hashToken } from '../../../src/domain/tokens';

/** A verifier a store holds from before (token "session-token-from-before"), in PostgreSQL's layout. */
const STORED = 'SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$EAyOvbEtgUm48g1AF+xIpAcdpfzXxTLV0hdjWDo0KrE=:J38Kp9sjRwKSghsBsRrPlbmHK8uKFvjIWFfl/i3/HJs=';

const proof = new ScramLinkProof();

/** One exchange between an agentctl holding `token` and a backend holding `verifier`: what each concluded. */
function link(token: string, verifier: string) {
  const agentctl = new LinkCredentials(token, proof).exchange();
  const opened = proof.open(agentctl.opening());
  if (!opened.ok) throw new Error(opened.reason);
  const challenge = opened.value.challenge(verifier);
  if (!challenge.ok) throw new Error(challenge.reason);
  const answer = agentctl.prove(challenge.value.message);
  if (!answer.ok) throw new Error(answer.reason);
  const checked = challenge.value.check(answer.value);
  return { sessionName: opened.value.sessionName, backendAccepted: checked.ok, agentctlAccepted: checked.ok && agentctl.backendProved(checked.value) };
}

describe('ScramLinkProof', () => {
  it('lets an agentctl and the backend prove themselves to each other, naming the session by its token hash', () => {
    expect(link('the-token', proof.verifierFor('the-token'))).toEqual({ sessionName: hashToken('the-token'), backendAccepted: true, agentctlAccepted: true });
  });

  it('still checks a verifier stored before, in the layout PostgreSQL uses', () => {
    expect(proof.verifierFor('x')).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(link('session-token-from-before', STORED)).toMatchObject({ backendAccepted: true, agentctlAccepted: true });
  });

  it('refuses a wrong token, a stored value that is no verifier, and an opening that is no SCRAM message', () => {
    expect(link('another-token', proof.verifierFor('the-token'))).toMatchObject({ backendAccepted: false, agentctlAccepted: false });
    const opened = proof.open(new LinkCredentials('t', proof).exchange().opening());
    expect(opened.ok && opened.value.challenge('').ok).toBe(false);
    expect(proof.open('hello').ok).toBe(false);
  });

  it('makes a fresh exchange for each connection attempt', () => {
    const credentials = new LinkCredentials('the-token', proof);
    expect(credentials.exchange().opening()).not.toBe(credentials.exchange().opening());
  });
});
