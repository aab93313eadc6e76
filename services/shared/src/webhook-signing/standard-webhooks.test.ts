import { Webhook } from 'standardwebhooks';
import { newEndpointSecret } from './signature';
import { standardKey, standardSignature, standardWebhookHeaders } from './standard-webhooks';

describe('Standard Webhooks signing', () => {
  it('matches the test vector of the Standard Webhooks spec', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(standardSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('keys with the 24 bytes our base62 secrets spell in base64, as the official library does', () => {
    const secret = newEndpointSecret();
    expect(standardKey(secret)).toHaveLength(24);
    expect(standardKey(secret).toString('base64')).toBe(secret.slice('whsec_'.length));
    const body = '{"id":"evt_1","object":"event"}';
    const timestamp = Math.floor(Date.now() / 1000);
    expect(new Webhook(secret).verify(body, standardWebhookHeaders('evt_1', timestamp, body, [secret]))).toEqual(JSON.parse(body));
  });

  it('carries one v1 value per secret, space-separated, and any of them verifies', () => {
    const [current, previous] = [newEndpointSecret(), newEndpointSecret()];
    const body = '{"id":"evt_2"}';
    const headers = standardWebhookHeaders('evt_2', Math.floor(Date.now() / 1000), body, [current, previous]);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newEndpointSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});
