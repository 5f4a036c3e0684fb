import { checkPauseMessage } from './PauseRule';

describe('pause rule messages', () => {
  it('take up to 4096 characters, new lines included', () => {
    expect(checkPauseMessage(`Paused\nfor ${'é'.repeat(4085)}`)).toHaveLength(4096);
    expect(() => checkPauseMessage('a'.repeat(4097))).toThrow('Invalid message: must be at most 4096 characters');
  });
});
