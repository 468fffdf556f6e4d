console.log('no examples yet')
